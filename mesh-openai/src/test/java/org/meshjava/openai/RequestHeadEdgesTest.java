package org.meshjava.openai;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Request heads a hostile-HTTP probe of both listeners found answered wrongly or in words that
 * named another fault (SPEC.md 70, "Request framing"): a header line with an empty field name told
 * "Line Folding not supported"; {@code OPTIONS *} answered 404 where OPTIONS on a path is 405; an
 * absolute-form {@code https://} or {@code ftp://} target served by a plain-HTTP listener; an
 * absolute-form target naming another authority than {@code Host} refused with its connection kept;
 * {@code Content-Encoding: identity, identity} refused as a compressed body. Raw sockets, loopback
 * only.
 */
class RequestHeadEdgesTest {
  private static final byte[] BODY =
      Fixture.chat("Hello.").toString().getBytes(StandardCharsets.UTF_8);
  private static final String CHAT = "/v1/chat/completions";
  private static final String JSON = "Content-Type: application/json";
  private static final String LENGTH = "Content-Length: " + BODY.length;
  private static final String GET_AFTER = "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";

  private final Fixture f = new Fixture(null, s -> {}, b -> b.console("127.0.0.1", 0));

  @AfterEach
  void close() {
    f.close();
  }

  private int consolePort() {
    return f.server.consoleUri().orElseThrow().getPort();
  }

  /** How many receipts the steward has sealed: each served chat seals one. */
  private long sealed() {
    return f.get("/v1/mesh/steward").json().get("next_sequence").asLong();
  }

  private static String text(byte[] bytes) {
    return new String(bytes, StandardCharsets.ISO_8859_1);
  }

  /** A chat POST, JSON and framed by length, with {@code fields} added to its head. */
  private static String chat(String... fields) {
    List<String> head = new java.util.ArrayList<>(List.of(JSON, LENGTH));
    head.addAll(List.of(fields));
    return RawConnection.post(CHAT, head.toArray(String[]::new)) + text(BODY);
  }

  /**
   * Sends {@code request} then a pipelined GET on one connection to {@code port}; the one answer
   * must be {@code status} with {@code code}, saying {@code Connection: close}, and the connection
   * must close with the GET unanswered. Returns the refusal's message.
   */
  private static String refusedAndClosed(
      int port, String name, String request, int status, String code) throws IOException {
    try (RawConnection c = new RawConnection(port)) {
      RawConnection.Response r = c.send(request + GET_AFTER).read();
      assertThat(r.status()).as("%s: %s", name, r.body()).isEqualTo(status);
      String message = r.answer().error(status, code).get("message").asText();
      assertThat(r.header("Connection"))
          .as("%s: the reply says the connection closes", name)
          .hasValue("close");
      assertThat(c.closedWithin(5_000))
          .as("%s: the connection closes, the GET after it unanswered", name)
          .isTrue();
      return message;
    }
  }

  /**
   * Jetty's parser takes a line starting with a colon for a folded line, and answered "Line Folding
   * not supported", which names another fault than the empty field name.
   */
  @Test
  void headerLineWithAnEmptyFieldName_is400NamingTheMissingName() throws Exception {
    for (String line : List.of(": value", ":value", ":")) {
      String message =
          refusedAndClosed(
              f.server.port(),
              line,
              "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n" + line + "\r\n\r\n",
              400,
              "http_400");
      assertThat(message).as(line).contains("a field needs a name before its colon");
    }
    // A folded line is refused in the same words, which name both faults.
    assertThat(refusedAndClosed(f.server.port(), "fold", chat("X-A: b", " c"), 400, "http_400"))
        .contains("obs-fold");
    assertThat(sealed()).isZero();
  }

  /**
   * {@code OPTIONS *} asks about the server as a whole (RFC 9110 §9.3.7); the API answered it 404
   * "no endpoint at *" while OPTIONS on any path is 405. Both listeners now answer it as they
   * answer OPTIONS anywhere, the API's {@code Allow} naming every method it serves on some path.
   */
  @Test
  void optionsAsterisk_is405WithAllow_likeOptionsOnAPath_onBothListeners() throws Exception {
    String asterisk = "OPTIONS * HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
    try (RawConnection c = new RawConnection(f)) {
      RawConnection.Response r = c.send(asterisk).read();
      r.answer().error(405, "method_not_allowed");
      assertThat(r.header("Allow")).hasValue("GET, HEAD, POST");
      // Decided like OPTIONS on a path: the connection goes on.
      RawConnection.Response next = c.send(GET_AFTER).read();
      assertThat(next.status()).isEqualTo(200);
    }
    try (RawConnection c = new RawConnection(consolePort())) {
      RawConnection.Response r = c.send(asterisk).read();
      r.answer().error(405, "method_not_allowed");
      assertThat(r.header("Allow")).hasValue("GET");
    }
  }

  /**
   * Both listeners speak plain HTTP. An absolute-form target naming {@code https} (what a proxy in
   * front forwards unchanged for a client that believes it talks TLS to the next hop) or any other
   * scheme was served as if it were {@code http}.
   */
  @Test
  void absoluteFormTarget_withASchemeTheListenerDoesNotSpeak_is400_andNothingIsServed()
      throws Exception {
    String authority = "127.0.0.1:" + f.server.port();
    for (String scheme : List.of("https", "ftp", "HTTPS")) {
      String request =
          chat()
              .replace("POST " + CHAT, "POST " + scheme + "://" + authority + CHAT)
              .replace("Host: 127.0.0.1", "Host: " + authority);
      assertThat(refusedAndClosed(f.server.port(), scheme, request, 400, "http_400"))
          .contains("the scheme " + scheme.toLowerCase(Locale.ROOT));
    }
    String console = "127.0.0.1:" + consolePort();
    String get =
        "GET https://" + console + "/v1/mesh/status HTTP/1.1\r\nHost: " + console + "\r\n\r\n";
    assertThat(refusedAndClosed(consolePort(), "console", get, 400, "http_400"))
        .contains("the scheme https");
    assertThat(sealed()).isZero();
    // http in any letter case is this listener's own scheme: served.
    try (RawConnection c = new RawConnection(f)) {
      String request =
          chat()
              .replace("POST " + CHAT, "POST HTTP://" + authority + CHAT)
              .replace("Host: 127.0.0.1", "Host: " + authority);
      assertThat(c.send(request).read().status()).isEqualTo(200);
    }
    assertThat(sealed()).isEqualTo(1);
  }

  /**
   * RFC 9112 §3.2.2: the target's authority wins over {@code Host}, so a request whose two disagree
   * is refused rather than served under either. Jetty refused it "Authority!=Host" and kept the
   * connection, answering what came after it, unlike every other refusal decided from the head.
   */
  @Test
  void absoluteFormTarget_namingAnotherAuthorityThanHost_is400NamingIt_andTheConnectionCloses()
      throws Exception {
    String authority = "127.0.0.1:" + f.server.port();
    Map<String, String> requests =
        Map.of(
            "another host in the target",
            chat()
                .replace("POST " + CHAT, "POST http://other.example" + CHAT)
                .replace("Host: 127.0.0.1", "Host: " + authority),
            "another host in Host",
            chat()
                .replace("POST " + CHAT, "POST http://" + authority + CHAT)
                .replace("Host: 127.0.0.1", "Host: other.example"));
    for (Map.Entry<String, String> e : requests.entrySet()) {
      assertThat(refusedAndClosed(f.server.port(), e.getKey(), e.getValue(), 400, "http_400"))
          .as(e.getKey())
          .contains("authority is not the Host field's");
    }
    assertThat(sealed()).isZero();
  }

  /**
   * RFC 9110 §5.6.1: a list's empty elements are ignored, so {@code , chunked} is chunked to any
   * proxy in front that follows it, and is read as chunked here. A Transfer-Encoding that names no
   * coding, or a field after the one naming chunked, is refused, its words naming the header.
   */
  @Test
  void transferEncoding_emptyListElementsAreIgnored_aListOfNoneIsRefusedNamingTheHeader()
      throws Exception {
    String chunked = text(RawConnection.chunked(BODY));
    for (List<String> fields :
        List.of(
            List.of("Transfer-Encoding: , chunked"),
            List.of("Transfer-Encoding: chunked,"),
            List.of("Transfer-Encoding: chunked, ,"),
            List.of("Transfer-Encoding:", "Transfer-Encoding: chunked"))) {
      List<String> head = new java.util.ArrayList<>(List.of(JSON));
      head.addAll(fields);
      try (RawConnection c = new RawConnection(f)) {
        RawConnection.Response r =
            c.send(RawConnection.post(CHAT, head.toArray(String[]::new)) + chunked + GET_AFTER)
                .read();
        assertThat(r.status()).as("%s: %s", fields, r.body()).isEqualTo(200);
        assertThat(c.read().status()).as("%s: the GET after it", fields).isEqualTo(200);
      }
    }
    assertThat(sealed()).isEqualTo(4);
    for (List<String> fields :
        List.of(
            List.of("Transfer-Encoding: ,"),
            List.of("Transfer-Encoding:"),
            List.of("Transfer-Encoding: chunked", "Transfer-Encoding:"))) {
      List<String> head = new java.util.ArrayList<>(List.of(JSON));
      head.addAll(fields);
      String request = RawConnection.post(CHAT, head.toArray(String[]::new)) + chunked;
      assertThat(refusedAndClosed(f.server.port(), fields.toString(), request, 400, "http_400"))
          .as(fields.toString())
          .contains("Transfer-Encoding must list chunked once, as its last coding");
    }
    assertThat(sealed()).isEqualTo(4);
  }

  /**
   * Content-Encoding is a list too (RFC 9110 §8.4): {@code identity, identity} and an empty element
   * name no coding, yet were refused 415 as a compressed body, the message naming "identity,
   * identity" as a coding not decoded.
   */
  @Test
  void contentEncoding_namingNoCodingButIdentity_isServed_anyOtherCodingIs415() throws Exception {
    for (String field :
        List.of(
            "Content-Encoding: identity, identity",
            "Content-Encoding: ,",
            "Content-Encoding: , IDENTITY")) {
      try (RawConnection c = new RawConnection(f)) {
        RawConnection.Response r = c.send(chat(field)).read();
        assertThat(r.status()).as("%s: %s", field, r.body()).isEqualTo(200);
      }
    }
    try (RawConnection c = new RawConnection(f)) {
      String message =
          c.send(chat("Content-Encoding: identity, gzip"))
              .read()
              .answer()
              .error(415, "unsupported_media_type")
              .get("message")
              .asText();
      assertThat(message).contains("Content-Encoding gzip is not decoded");
    }
    assertThat(sealed()).isEqualTo(3);
  }

  /**
   * A Content-Length with leading zeros is still digits alone, so RFC 9110 §8.6 reads it as its
   * decimal value, as any proxy in front does: the body ends where that value says, and the GET
   * sent after it is the next request.
   */
  @Test
  void contentLength_withLeadingZeros_framesTheBodyByItsDecimalValue() throws Exception {
    try (RawConnection c = new RawConnection(f)) {
      c.send(chat().replace(LENGTH, "Content-Length: 000" + BODY.length) + GET_AFTER);
      RawConnection.Response served = c.read();
      assertThat(served.status()).as(served.body()).isEqualTo(200);
      assertThat(c.read().body()).contains("alive");
    }
    assertThat(sealed()).isEqualTo(1);
  }

  /**
   * Jetty's own words for these were "Bad HostPort", "Invalid Content-Length Value", a bare "Bad
   * Request" for a Content-Length past 2^63-1, and so on.
   */
  @Test
  void refusalsJettyDecides_nameTheFieldAndWhatToSend() throws Exception {
    Map<String, String> requests =
        Map.of(
            "Host with userinfo",
            chat().replace("Host: 127.0.0.1", "Host: user@127.0.0.1"),
            "Host with a port out of range",
            chat().replace("Host: 127.0.0.1", "Host: 127.0.0.1:65536"),
            "a signed Content-Length",
            chat().replace(LENGTH, "Content-Length: +" + BODY.length),
            "an empty Host",
            chat().replace("Host: 127.0.0.1", "Host:"),
            "a Content-Length past 2^63-1",
            chat().replace(LENGTH, "Content-Length: 9223372036854775808"));
    Map<String, String> words =
        Map.of(
            "Host with userinfo", "the Host field must be a host name",
            "Host with a port out of range", "port from 0 to 65535",
            "a signed Content-Length", "Content-Length must be decimal digits alone",
            "an empty Host", "the Host field is empty",
            "a Content-Length past 2^63-1", "Content-Length is larger than any length");
    for (Map.Entry<String, String> e : requests.entrySet()) {
      assertThat(refusedAndClosed(f.server.port(), e.getKey(), e.getValue(), 400, "http_400"))
          .as(e.getKey())
          .contains(words.get(e.getKey()));
    }
    assertThat(
            refusedAndClosed(
                f.server.port(), "Expect", chat("Expect: something-else"), 417, "http_417"))
        .contains("Expect names an expectation other than 100-continue");
    assertThat(sealed()).isZero();
  }

  /**
   * More of Jetty's words that named no field and no remedy: "Fragment", "Deprecated User Info",
   * "Illegal character VCHAR='('", "Bad EOL", "URI Too Long", "Request Header Fields Too Large",
   * "Unknown Version".
   */
  @Test
  void requestLineAndFieldRefusals_sayWhatIsWrongAndTheLimit() throws Exception {
    int port = f.server.port();
    String host = "Host: 127.0.0.1\r\n";
    assertThat(
            refusedAndClosed(
                port, "fragment", "GET /healthz#x HTTP/1.1\r\n" + host + "\r\n", 400, "http_400"))
        .contains("holds a fragment");
    assertThat(
            refusedAndClosed(
                port,
                "userinfo",
                "GET http://u@127.0.0.1/healthz HTTP/1.1\r\n" + host + "\r\n",
                400,
                "http_400"))
        .contains("holds userinfo");
    assertThat(
            refusedAndClosed(
                port,
                "field name",
                "GET /healthz HTTP/1.1\r\n" + host + "X(A): b\r\n\r\n",
                400,
                "http_400"))
        .contains("a field name takes letters, digits")
        .contains("'('");
    assertThat(
            refusedAndClosed(
                port,
                "control character",
                "GET /healthz HTTP/1.1\r\n" + host + "X-A: a\u000bb\r\n\r\n",
                400,
                "http_400"))
        .contains("a field value takes no control character but tab");
    assertThat(
            refusedAndClosed(
                port,
                "bare CR",
                "GET /healthz HTTP/1.1\r\n" + host + "X-A: a\rb\r\n\r\n",
                400,
                "http_400"))
        .contains("a CR that is not followed by LF");
    assertThat(
            refusedAndClosed(
                port,
                "long line",
                "GET /" + "a".repeat(9_000) + " HTTP/1.1\r\n" + host + "\r\n",
                414,
                "http_414"))
        .contains("longer than the 8192 bytes");
    StringBuilder fields = new StringBuilder();
    for (int i = 0; i < 300; i++) {
      fields.append("X-").append(i).append(": ").append("a".repeat(50)).append("\r\n");
    }
    assertThat(
            refusedAndClosed(
                port,
                "many fields",
                "GET /healthz HTTP/1.1\r\n" + host + fields + "\r\n",
                431,
                "http_431"))
        .contains("larger than the 8192 bytes");
    assertThat(
            refusedAndClosed(
                port, "HTTP/1.2", "GET /healthz HTTP/1.2\r\n" + host + "\r\n", 505, "http_505"))
        .contains("send HTTP/1.1");
  }

  /**
   * The console's listener closed every connection after its answer: a GET declares no length
   * (Jetty's -1), which was taken for a body sent. A page polling the console's JSON opened a new
   * connection per poll. Only a request that sent a body has its connection closed.
   */
  @Test
  void consoleListener_keepsTheConnectionOfARequestWithoutABody() throws Exception {
    String get = "GET /v1/mesh/status HTTP/1.1\r\nHost: localhost\r\n\r\n";
    try (RawConnection c = new RawConnection(consolePort())) {
      c.send(get + get);
      assertThat(c.read().status()).isEqualTo(200);
      assertThat(c.read().status()).as("the second GET on the connection").isEqualTo(200);
      assertThat(c.closedWithin(500)).isFalse();
    }
    String post = "POST /v1/mesh/status HTTP/1.1\r\nHost: localhost\r\nContent-Length: 2\r\n\r\n{}";
    assertThat(refusedAndClosed(consolePort(), "console POST", post, 405, "method_not_allowed"))
        .contains("read-only");
  }

  /**
   * A quoted string is no transfer coding (RFC 9112 §7 names codings by tokens), yet {@code "",
   * chunked} was answered 501 for "the transfer coding is not decoded here", a coding with no name;
   * the quotes were taken off and the empty name refused as one not understood.
   */
  @Test
  void transferEncoding_withAQuotedElement_is400NamingIt_notA501ForAnEmptyCoding()
      throws Exception {
    String chunked = text(RawConnection.chunked(BODY));
    for (String value : List.of("\"\", chunked", "\"gzip\", chunked", "chunked, \"\", chunked")) {
      String request = RawConnection.post(CHAT, JSON, "Transfer-Encoding: " + value) + chunked;
      String message = refusedAndClosed(f.server.port(), value, request, 400, "http_400");
      if (!value.startsWith("chunked")) {
        assertThat(message).as(value).contains("quoted string \"").contains("never quoted");
      }
    }
    assertThat(sealed()).isZero();
  }

  /**
   * Targets Jetty's URI parser refuses were answered with its bare "Bad Request" (an authority-form
   * target, a '%' escape that is none, a path climbing above the root, an escaped NUL) or its own
   * names for the fault ("Bad URI path", "Ambiguous URI path segment", "UTF-16 encoding"); each now
   * names what is wrong, on both listeners, and the connection still closes.
   */
  @Test
  void targetsThatAreNoPath_orHoldABadEscape_are400NamingTheFault_onBothListeners()
      throws Exception {
    // Each target, then words its refusal must hold.
    String targets =
        """
        127.0.0.1:443 | authority form
        localhost:8080 | authority form
        example.com | authority form
        * | '*' is OPTIONS's alone
        ?x=1 | must be a path beginning with '/'
        /v1/models/%zz | not followed by two hex digits
        /v1/models/ab%2 | not followed by two hex digits
        /v1/models/%u0041 | not followed by two hex digits
        http://127.0.0.1/v1/%zz | not followed by two hex digits
        /../v1/models | climbs above the root
        /v1/models/a%00b | control character
        /v1/models/a%7Fb | control character
        /v1/%2e/models | encoded dot segment
        //v1/models | empty segment
        /v1/./models | a dot segment ('.' or '..')
        /v1/../v1/models | a dot segment ('.' or '..')
        /v1/models/.. | a dot segment ('.' or '..')
        /v1/mesh/./status | a dot segment ('.' or '..')
        http://127.0.0.1/v1/./models | a dot segment ('.' or '..')
        """;
    for (int port : List.of(f.server.port(), consolePort())) {
      for (String row : targets.strip().split("\n")) {
        String[] target = row.split(" \\| ");
        String get = "GET " + target[0] + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
        String message = refusedAndClosed(port, target[0], get, 400, "http_400");
        assertThat(message).as("%s on %d", target[0], port).contains(target[1]);
      }
      String connect = "CONNECT /v1/models HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
      assertThat(refusedAndClosed(port, "CONNECT a path", connect, 400, "http_400"))
          .contains("a CONNECT target is a host and port alone");
    }
  }

  /**
   * Method names are case-sensitive (RFC 9110 §9.1): {@code get} is no method this server knows,
   * and it was answered 405 "use GET here, not get", as if the path served another method than the
   * one sent; {@code FOO} got the same 405 as {@code PUT}. A method the server does not recognise
   * is 501 (RFC 9110 §15.6.2) on both listeners, naming the case where that is the fault; a known
   * method a path does not serve stays 405. Answered after the (empty) body, the connection goes
   * on.
   */
  @Test
  void anUnknownMethod_is501_methodsAreCaseSensitive_aKnownOneUnservedStays405() throws Exception {
    Map<Integer, String> listeners =
        Map.of(f.server.port(), "GET, HEAD, POST", consolePort(), "GET");
    for (Map.Entry<Integer, String> l : listeners.entrySet()) {
      String path = l.getKey() == f.server.port() ? "/v1/models" : "/v1/mesh/status";
      try (RawConnection c = new RawConnection(l.getKey())) {
        RawConnection.Response lower =
            c.send("get " + path + " HTTP/1.1\r\nHost: localhost\r\n\r\n").read();
        assertThat(lower.answer().error(501, "method_not_implemented").get("message").asText())
            .contains("case-sensitive")
            .contains("GET, not get");
        assertThat(lower.header("Allow")).hasValue(l.getValue());
        RawConnection.Response foo =
            c.send("FOO " + path + " HTTP/1.1\r\nHost: localhost\r\n\r\n").read();
        assertThat(foo.answer().error(501, "method_not_implemented").get("message").asText())
            .contains("the method FOO is not one this server knows")
            .doesNotContain("case-sensitive");
        RawConnection.Response put =
            c.send("PUT " + path + " HTTP/1.1\r\nHost: localhost\r\nContent-Length: 0\r\n\r\n")
                .read();
        put.answer().error(405, "method_not_allowed");
        assertThat(c.send("GET " + path + " HTTP/1.1\r\nHost: localhost\r\n\r\n").read().status())
            .as("the connection goes on")
            .isEqualTo(200);
      }
    }
  }

  /**
   * A method this server does not know is refused from the request line, before any of the body is
   * read, on both listeners. The API's listener decided it only once the body had arrived: a
   * declared length over the limit was told 413, a body that stalled had no answer until the body
   * deadline (408), and a client that asked for {@code 100 Continue} was told to upload its body.
   * The unread body's connection is closed, so its bytes are never read as the next request.
   */
  @Test
  void anUnknownMethod_isRefusedFromTheRequestLine_beforeAnyOfItsBodyIsRead_onBothListeners()
      throws Exception {
    String head = "FOO /v1/models HTTP/1.1\r\nHost: 127.0.0.1\r\n";
    Map<String, String> requests =
        Map.of(
            "a length over the body limit", head + "Content-Length: 999999999\r\n\r\n",
            "a body that stalls", head + "Content-Length: 100\r\n\r\n{\"a\"",
            "a chunk that stalls", head + "Transfer-Encoding: chunked\r\n\r\n10\r\n{\"a\"",
            "Expect: 100-continue", head + "Content-Length: 10\r\nExpect: 100-continue\r\n\r\n");
    for (int port : List.of(f.server.port(), consolePort())) {
      for (Map.Entry<String, String> r : requests.entrySet()) {
        try (RawConnection c = new RawConnection(port)) {
          RawConnection.Response answer = c.send(r.getValue()).read();
          assertThat(answer.status()).as("%s on %d: %s", r.getKey(), port, answer).isEqualTo(501);
          answer.answer().error(501, "method_not_implemented");
          assertThat(c.closedWithin(5_000))
              .as("%s on %d: the connection closes, its body unread", r.getKey(), port)
              .isTrue();
        }
      }
    }
  }

  /**
   * Framing faults a fifth round found still answered in Jetty's words, which name its checks
   * rather than what to send ("Multiple Content-Lengths", "No Host", "LF line terminator in
   * header", "HTTP/0.9 not supported", "Suspicious Path Character, Illegal Path Character"). Each
   * request is given as its head, with {@code |} for CRLF and {@code ~} for a bare LF; then its
   * status and words its message must hold.
   */
  @Test
  void framingFaultsJettyWordsForItsOwnChecks_areAnsweredInWordsSayingWhatToSend()
      throws Exception {
    String length = "Content-Length: 2|";
    String rows =
        """
        two lengths ! POST /v1/chat/completions HTTP/1.1|Host: a|%1$s%1$s|{} ! 400 ! send one
        length and chunked ! POST /v1/chat/completions HTTP/1.1|Host: a|%1$sTransfer-Encoding: \
        chunked||0|| ! 400 ! send one of them
        two Hosts ! GET /healthz HTTP/1.1|Host: a|Host: a|| ! 400 ! more than one Host field
        no Host ! GET /healthz HTTP/1.1|| ! 400 ! needs a Host field
        HTTP/0.9 ! GET /healthz| ! 505 ! names no HTTP version
        bare LF ! GET /healthz HTTP/1.1~Host: a|| ! 400 ! bare LF
        chunked twice ! POST /v1/chat/completions HTTP/1.1|Host: a|Transfer-Encoding: chunked, \
        chunked||0|| ! 400 ! list chunked once
        raw backslash ! GET /v1/a\\b HTTP/1.1|Host: a|| ! 400 ! a backslash
        raw non-ASCII ! GET /v1/caf\u00e9 HTTP/1.1|Host: a|| ! 400 ! a byte outside ASCII
        """
            .formatted(length);
    for (String row : rows.strip().split("\n")) {
      String[] c = row.split(" ! ");
      String message =
          refusedAndClosed(
              f.server.port(),
              c[0],
              c[1].replace("|", "\r\n").replace("~", "\n"),
              Integer.parseInt(c[2]),
              "http_" + c[2]);
      assertThat(message).as(c[0]).contains(c[3]);
    }
    assertThat(sealed()).isZero();
  }
}
