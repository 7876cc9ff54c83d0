package org.meshjava.openai;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The request framing the API's listener takes and refuses (SPEC.md 70, "Request framing"), each
 * sent as raw bytes by a hostile client. A head whose body could be framed two ways, or that a
 * proxy in front could read otherwise, is refused 400 and its connection closed, and nothing sent
 * after it on that connection is answered. Leniencies that cannot change where a request ends are
 * kept, and pinned here so that a Jetty upgrade that changes them is seen.
 */
class HttpFramingRulesTest {
  private static final byte[] BODY =
      Fixture.chat("Hello.").toString().getBytes(StandardCharsets.UTF_8);
  private static final String CHAT = "/v1/chat/completions";
  private static final String JSON = "Content-Type: application/json";
  private static final String LENGTH = "Content-Length: " + BODY.length;
  private static final String SMUGGLED = "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";

  private final Fixture f = new Fixture();

  @AfterEach
  void close() {
    f.close();
  }

  /** How many receipts the steward has sealed: each served chat seals one. */
  private long sealed() {
    return f.get("/v1/mesh/steward").json().get("next_sequence").asLong();
  }

  /** {@code head} then {@code body} as one write: what a client pipelining them sends. */
  private static byte[] bytes(String head, byte[] body) {
    byte[] h = head.getBytes(StandardCharsets.ISO_8859_1);
    byte[] whole = java.util.Arrays.copyOf(h, h.length + body.length);
    System.arraycopy(body, 0, whole, h.length, body.length);
    return whole;
  }

  /**
   * Sends {@code request} followed by a pipelined GET in the same write, and checks that the one
   * answer is a 400 naming {@code code} whose connection then closes, the GET never answered.
   */
  private void refusedAndClosed(String name, byte[] request, int status, String code)
      throws IOException {
    byte[] smuggled = SMUGGLED.getBytes(StandardCharsets.ISO_8859_1);
    try (RawConnection c = new RawConnection(f)) {
      RawConnection.Response r =
          c.send(bytes(new String(request, StandardCharsets.ISO_8859_1), smuggled)).read();
      assertThat(r.status()).as("%s: %s", name, r.body()).isEqualTo(status);
      r.answer().error(status, code);
      assertThat(c.closedWithin(5_000))
          .as("%s: the connection closes, the GET unanswered", name)
          .isTrue();
    }
  }

  private static byte[] chat(String... fields) {
    return bytes(RawConnection.post(CHAT, fields), BODY);
  }

  private static byte[] chunkedChat(String framing, String... fields) {
    return bytes(RawConnection.post(CHAT, fields), framing.getBytes(StandardCharsets.ISO_8859_1));
  }

  /** A chat whose target is in absolute form naming {@code authority}, with {@code Host: host}. */
  private static byte[] absoluteForm(String authority, String host) {
    String head =
        RawConnection.post(CHAT, JSON, LENGTH).replace("Host: 127.0.0.1", "Host: " + host);
    return bytes(head.replace("POST " + CHAT, "POST http://" + authority + CHAT), BODY);
  }

  /** {@link #BODY} as one chunk whose size line is {@code size} as written. */
  private static String chunk(String size) {
    return size + "\r\n" + new String(BODY, StandardCharsets.ISO_8859_1) + "\r\n0\r\n\r\n";
  }

  @Test
  void ambiguousFraming_is400_theConnectionCloses_andNothingAfterItIsServed() throws Exception {
    String te = "Transfer-Encoding: chunked";
    String hex = Integer.toHexString(BODY.length);
    Map<String, byte[]> requests =
        Map.ofEntries(
            Map.entry("Content-Length and chunked", chunkedChat(chunk(hex), JSON, LENGTH, te)),
            Map.entry("chunked and Content-Length", chunkedChat(chunk(hex), JSON, te, LENGTH)),
            Map.entry("two equal Content-Lengths", chat(JSON, LENGTH, LENGTH)),
            Map.entry("two Content-Lengths", chat(JSON, LENGTH, "Content-Length: 5")),
            Map.entry("a Content-Length list", chat(JSON, LENGTH + ", " + BODY.length)),
            Map.entry("a signed Content-Length", chat(JSON, LENGTH.replace(": ", ": +"))),
            Map.entry(
                "chunked, identity",
                chunkedChat(chunk(hex), JSON, "Transfer-Encoding: chunked, identity")),
            Map.entry("xchunked", chunkedChat(chunk(hex), JSON, "Transfer-Encoding: xchunked")),
            Map.entry(
                "a folded line", chunkedChat(chunk(hex), JSON, "Transfer-Encoding:", " chunked")),
            Map.entry("space before a colon", chat(JSON, LENGTH.replace(":", " :"))),
            Map.entry("NUL in a value", chat(JSON, LENGTH, "X-Note: a\0b")),
            Map.entry("a control character in a value", chat(JSON, LENGTH, "X-Note: a\u0001b")),
            Map.entry("two Host fields", chat(JSON, LENGTH, "Host: other.example")),
            Map.entry("a huge chunk size", chunkedChat(chunk("f".repeat(20)), JSON, te)),
            Map.entry("a chunk size with junk", chunkedChat(chunk(hex + "g"), JSON, te)),
            Map.entry("a chunk size with a space", chunkedChat(chunk(" " + hex), JSON, te)));
    for (Map.Entry<String, byte[]> e : requests.entrySet()) {
      refusedAndClosed(e.getKey(), e.getValue(), 400, "http_400");
    }
    byte[] noHost =
        bytes("POST " + CHAT + " HTTP/1.1\r\n" + JSON + "\r\n" + LENGTH + "\r\n\r\n", BODY);
    refusedAndClosed("no Host", noHost, 400, "http_400");
    assertThat(sealed()).isZero();
  }

  /**
   * HTTP/1.0 has no transfer codings, yet Jetty read an HTTP/1.0 body as chunked, served it, and
   * kept the connection for the next request (RFC 9112 §6.1 asks that such framing be taken as
   * faulty and the connection closed).
   */
  @Test
  void http10_withTransferEncoding_is400_notServed_andTheConnectionClosed() throws Exception {
    String head =
        "POST "
            + CHAT
            + " HTTP/1.0\r\nConnection: keep-alive\r\n"
            + JSON
            + "\r\nTransfer-Encoding: chunked\r\n\r\n";
    byte[] request = bytes(head, RawConnection.chunked(BODY));
    try (RawConnection c = new RawConnection(f)) {
      RawConnection.Response r =
          c.send(
                  bytes(
                      new String(request, StandardCharsets.ISO_8859_1),
                      "GET /healthz HTTP/1.0\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1)))
              .read();
      assertThat(r.answer().error(400, "http_400").get("message").asText()).contains("HTTP/1.0");
      assertThat(c.closedWithin(5_000)).as("the GET after it is not answered").isTrue();
    }
    assertThat(sealed()).isZero();
    // HTTP/1.0 framed by its Content-Length is served.
    try (RawConnection c = new RawConnection(f)) {
      RawConnection.Response r =
          c.send(
                  bytes(
                      "POST " + CHAT + " HTTP/1.0\r\n" + JSON + "\r\n" + LENGTH + "\r\n\r\n", BODY))
              .read();
      assertThat(r.status()).as(r.body()).isEqualTo(200);
    }
  }

  /**
   * A POST with neither Content-Length nor Transfer-Encoding has no body (RFC 9112 §6.3); it was
   * refused {@code not_json}, "the body must be one JSON object", and the JSON the client sent
   * after its head was then read as the next request and refused as a malformed request line.
   */
  @Test
  void postWithNoLengthAndNoTransferCoding_is411_andTheConnectionClosed() throws Exception {
    try (RawConnection c = new RawConnection(f)) {
      RawConnection.Response r = c.send(bytes(RawConnection.post(CHAT, JSON), BODY)).read();
      assertThat(r.answer().error(411, "length_required").get("message").asText())
          .contains("Content-Length");
      assertThat(c.closedWithin(5_000)).as("the body is not read as a request").isTrue();
    }
    assertThat(sealed()).isZero();
    // An empty body that says so is a body, refused as what it is.
    try (RawConnection c = new RawConnection(f)) {
      c.send(RawConnection.post(CHAT, JSON, "Content-Length: 0"))
          .read()
          .answer()
          .error(400, "not_json");
    }
  }

  /**
   * Header lines ended by a bare LF were taken (Jetty's RFC 9110 mode allows it), while a chunk
   * framed that way was refused; a proxy in front that reads a bare LF as part of a value would
   * frame such a request otherwise than this server.
   */
  @Test
  void bareLfLineEndings_are400_andTheConnectionClosed() throws Exception {
    String get = "GET /healthz HTTP/1.1\nHost: 127.0.0.1\n\n";
    refusedAndClosed("a GET", get.getBytes(StandardCharsets.ISO_8859_1), 400, "http_400");
    String post = RawConnection.post(CHAT, JSON, LENGTH).replace("\r\n", "\n");
    refusedAndClosed("a POST", bytes(post, BODY), 400, "http_400");
    assertThat(sealed()).isZero();
  }

  /**
   * Leniencies kept: none changes where a request ends. Chunk extensions and trailer fields are
   * part of chunked framing (a trailer's Content-Length frames nothing); empty lines before a
   * request line are skipped (RFC 9112 §2.2); a request line split by more than one space, or with
   * its version in lower case, is still one request line; an absolute-form target naming this
   * server is its path (RFC 9112 §3.2.2).
   */
  @Test
  void leniencies_thatCannotMoveARequestsEnd_areServed() throws Exception {
    String hex = Integer.toHexString(BODY.length);
    String te = "Transfer-Encoding: chunked";
    String body = new String(BODY, StandardCharsets.ISO_8859_1);
    String host = "127.0.0.1:" + f.server.port();
    List<byte[]> served =
        List.of(
            chunkedChat(hex + ";ext=\"a b\"\r\n" + body + "\r\n0;last\r\n\r\n", JSON, te),
            chunkedChat(
                hex + "\r\n" + body + "\r\n0\r\nContent-Length: 5\r\nX-T: 1\r\n\r\n", JSON, te),
            bytes("\r\n" + RawConnection.post(CHAT, JSON, LENGTH), BODY),
            bytes(RawConnection.post(CHAT, JSON, LENGTH).replace("POST ", "POST  "), BODY),
            bytes(RawConnection.post(CHAT, JSON, LENGTH).replace("HTTP/1.1", "http/1.1"), BODY),
            absoluteForm(host, host));
    for (byte[] request : served) {
      try (RawConnection c = new RawConnection(f)) {
        RawConnection.Response r = c.send(request).read();
        assertThat(r.status()).as(new String(request, StandardCharsets.ISO_8859_1)).isEqualTo(200);
      }
    }
    assertThat(sealed()).isEqualTo(served.size());
    // An absolute-form target naming another host than Host says is refused.
    try (RawConnection c = new RawConnection(f)) {
      c.send(absoluteForm("other.example", host)).read().answer().error(400, "http_400");
    }
    assertThat(sealed()).isEqualTo(served.size());
  }

  @Test
  void traceAndOptions_are405NamingTheMethodsServed() throws Exception {
    try (RawConnection c = new RawConnection(f)) {
      for (String method : List.of("TRACE", "OPTIONS")) {
        RawConnection.Response r =
            c.send(method + " " + CHAT + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n").read();
        r.answer().error(405, "method_not_allowed");
        assertThat(r.header("Allow")).as(method).hasValue("POST");
        // Nothing of the request is echoed (TRACE's purpose), and the connection goes on.
        assertThat(r.body()).doesNotContain("Host");
      }
    }
  }

  /**
   * Chats pipelined on one connection, the second refused for its body: each is answered once, in
   * order, and only the two served are sealed.
   */
  @Test
  void pipelinedChats_withARefusalBetween_areEachAnsweredOnceInOrder() throws Exception {
    byte[] bad = "{\"model\":".getBytes(StandardCharsets.UTF_8);
    byte[] all =
        bytes(
            new String(chat(JSON, LENGTH), StandardCharsets.ISO_8859_1)
                + new String(
                    bytes(RawConnection.post(CHAT, JSON, "Content-Length: " + bad.length), bad),
                    StandardCharsets.ISO_8859_1),
            chat(JSON, LENGTH));
    try (RawConnection c = new RawConnection(f)) {
      c.send(all);
      RawConnection.Response first = c.read();
      RawConnection.Response second = c.read();
      RawConnection.Response third = c.read();
      assertThat(first.status()).as(first.body()).isEqualTo(200);
      second.answer().error(400, "not_json");
      assertThat(third.status()).as(third.body()).isEqualTo(200);
      assertThat(Fixture.JSON.readTree(first.body()).get("id").asText())
          .isNotEqualTo(Fixture.JSON.readTree(third.body()).get("id").asText());
      assertThat(c.closedWithin(1_000)).as("nothing more is answered").isFalse();
    }
    assertThat(sealed()).isEqualTo(2);
  }

  /**
   * Jetty strips {@code ;…} from a path's segments before it is matched, so {@code
   * /v1/mesh/steward;x} was answered as {@code /v1/mesh/steward}, and a chat POSTed to {@code
   * /v1/chat/completions;a=b} was served: a proxy that denies a path as written let it through.
   */
  @Test
  void pathWithASemicolonParameter_is404_andNothingIsServed() throws Exception {
    for (String path : List.of("/v1/mesh/steward;x", "/v1;x/mesh/steward", "/healthz;")) {
      try (RawConnection c = new RawConnection(f)) {
        RawConnection.Response r =
            c.send("GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n").read();
        assertThat(r.answer().error(404, "not_found").get("message").asText())
            .as(path)
            .contains(path);
      }
    }
    try (RawConnection c = new RawConnection(f)) {
      c.send(bytes(RawConnection.post(CHAT + ";a=b", JSON, LENGTH), BODY))
          .read()
          .answer()
          .error(404, "not_found");
    }
    assertThat(sealed()).isZero();
    // In a model id a ';', raw or escaped as %3B, is part of the id, not a parameter: no such
    // model, and never the model named by what precedes it.
    f.get("/v1/models/small;v=2").error(404, "model_not_found");
    f.get("/v1/models/small%3Bv=2").error(404, "model_not_found");
  }

  /**
   * An HTTP/1.0 client knows no interim responses, and its {@code Expect: 100-continue} is to be
   * ignored (RFC 9110 §10.1.1, §15.2); Jetty answered it {@code 100 Continue}, which an HTTP/1.0
   * proxy takes as the whole response, and then the real one as the next request's.
   */
  @Test
  void http10_expect100Continue_getsNoInterimResponse_onlyTheFinalOne() throws Exception {
    String head = "POST " + CHAT + " HTTP/1.0\r\nExpect: 100-continue\r\n" + JSON + "\r\n" + LENGTH;
    try (RawConnection c = new RawConnection(f)) {
      Optional<RawConnection.Response> early = c.send(head + "\r\n\r\n").readWithin(1_000);
      assertThat(early.map(RawConnection.Response::statusLine)).as("before the body").isEmpty();
      RawConnection.Response r = c.send(BODY).read();
      assertThat(r.status()).as(r.body()).isEqualTo(200);
      assertThat(c.closedWithin(5_000)).as("HTTP/1.0 without keep-alive").isTrue();
    }
    // HTTP/1.1 still gets its 100 Continue.
    try (RawConnection c = new RawConnection(f)) {
      RawConnection.Response interim =
          c.send(RawConnection.post(CHAT, "Expect: 100-continue", JSON, LENGTH)).read();
      assertThat(interim.status()).isEqualTo(100);
      assertThat(c.send(BODY).read().status()).isEqualTo(200);
    }
  }

  /**
   * Chunk extensions and trailer fields count against the 8 KiB header limit; past it the request
   * was refused as "the body ended before its framing said it would, or its chunked framing is
   * malformed", which names neither. The refusal now names the limit too, and nothing is served.
   */
  @Test
  void chunkExtensionsOrTrailersOverTheHeaderLimit_are400NamingTheLimit() throws Exception {
    String te = "Transfer-Encoding: chunked";
    String hex = Integer.toHexString(BODY.length);
    String body = new String(BODY, StandardCharsets.ISO_8859_1);
    String big = "a".repeat(9_000);
    Map<String, byte[]> requests =
        Map.of(
            "a chunk extension",
            chunkedChat(hex + ";x=" + big + "\r\n" + body + "\r\n0\r\n\r\n", JSON, te),
            "a trailer field",
            chunkedChat(hex + "\r\n" + body + "\r\n0\r\nX-T: " + big + "\r\n\r\n", JSON, te));
    for (Map.Entry<String, byte[]> e : requests.entrySet()) {
      try (RawConnection c = new RawConnection(f)) {
        RawConnection.Response r = c.send(e.getValue()).read();
        assertThat(r.answer().error(400, "http_400").get("message").asText())
            .as(e.getKey())
            .contains("chunk extensions or trailer fields exceed 8192 bytes");
        assertThat(c.closedWithin(5_000)).as(e.getKey()).isTrue();
      }
    }
    assertThat(sealed()).isZero();
  }
}
