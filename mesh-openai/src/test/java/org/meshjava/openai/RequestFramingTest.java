package org.meshjava.openai;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Framing seams a hostile-HTTP probe found. A transfer coding before {@code chunked} was ignored,
 * so a gzipped body was parsed as JSON (and a plain one served). A client that sent {@code Expect:
 * 100-continue} with a body refused from its headers alone was told {@code 100 Continue} first, and
 * so uploaded a body only to see it refused. An HTTP/2 preface got a 426 with an empty body, unlike
 * every other refusal. Raw sockets, loopback only.
 */
class RequestFramingTest {
  private static final byte[] BODY =
      Fixture.chat("Hello.").toString().getBytes(StandardCharsets.UTF_8);
  private static final String CHAT = "/v1/chat/completions";
  private static final String JSON = "Content-Type: application/json";

  private final Fixture f = new Fixture();

  @AfterEach
  void close() {
    f.close();
  }

  private static byte[] gzip(byte[] bytes) throws IOException {
    ByteArrayOutputStream zipped = new ByteArrayOutputStream();
    try (GZIPOutputStream gz = new GZIPOutputStream(zipped)) {
      gz.write(bytes);
    }
    return zipped.toByteArray();
  }

  /** Sends one whole request on a new connection and reads its response. */
  private RawConnection.Response exchange(String head, byte[] body) throws IOException {
    try (RawConnection c = new RawConnection(f)) {
      return c.send(head).send(body).read();
    }
  }

  /** How many receipts the steward has sealed: a request that reached a serve seals one. */
  private long sealed() {
    return f.get("/v1/mesh/steward").json().get("next_sequence").asLong();
  }

  /** POSTs {@code body} as it is to the chat endpoint, as JSON, with {@code fields} added. */
  private RawConnection.Response chat(byte[] body, String... fields) throws IOException {
    List<String> head = new ArrayList<>(List.of(JSON));
    head.addAll(List.of(fields));
    return exchange(RawConnection.post(CHAT, head.toArray(String[]::new)), body);
  }

  @Test
  void transferCoding_otherThanChunked_is501_andTheBodyIsNeverServed() throws Exception {
    byte[] chunked = RawConnection.chunked(BODY);
    List<RawConnection.Response> answers =
        List.of(
            chat(RawConnection.chunked(gzip(BODY)), "Transfer-Encoding: gzip, chunked"),
            // A body that is plain JSON whatever it claims is refused too, not served.
            chat(chunked, "Transfer-Encoding: gzip, chunked"),
            chat(chunked, "Transfer-Encoding: gzip", "Transfer-Encoding: chunked"),
            chat(chunked, "Transfer-Encoding: x-custom;q=1, chunked"));
    for (RawConnection.Response r : answers) {
      r.answer().error(501, "unsupported_transfer_coding");
      assertThat(r.header("Connection")).as(r.head()).hasValue("close");
    }
    assertThat(sealed()).isZero();
    // Chunked alone, in any letter case, is framing the server reads.
    RawConnection.Response served = chat(chunked, "Transfer-Encoding: Chunked");
    assertThat(served.status()).as(served.body()).isEqualTo(200);
  }

  @Test
  void transferEncoding_chunkedTwiceOrNotLast_is400FromJettysParser() throws Exception {
    List<RawConnection.Response> answers =
        List.of(
            chat(RawConnection.chunked(BODY), "Transfer-Encoding: chunked, chunked"),
            chat(BODY, "Transfer-Encoding: identity"),
            chat(BODY, "Transfer-Encoding: identity", "Content-Length: " + BODY.length),
            chat(BODY, "Transfer-Encoding: gzip"));
    // The body's length cannot be told, or is told two ways; Jetty's refusal is JSON like ours.
    for (RawConnection.Response r : answers) {
      r.answer().error(400, "http_400");
    }
    assertThat(sealed()).isZero();
  }

  /**
   * Sends only the head of a request that asks {@code Expect: 100-continue}, and checks that the
   * first answer is the refusal, not {@code 100 Continue}, and that the connection then closes.
   */
  private void refusedBeforeItsBody(String head, int status, String code) throws IOException {
    try (RawConnection conn = new RawConnection(f)) {
      RawConnection.Response first = conn.send(head).read();
      assertThat(first.statusLine()).as(head).doesNotContain(" 100 ");
      first.answer().error(status, code);
      // The body was never asked for, so the connection cannot carry another request.
      assertThat(conn.closedWithin(2_000)).as(head).isTrue();
    }
  }

  /**
   * A declared length over the limit whose body came in the same write as its head: Jetty's size
   * limit answered 413 and then drained the body to keep the connection, although SPEC.md 70 says a
   * refusal decided from the head closes it (a hostile-HTTP probe saw the connection stay open).
   */
  @Test
  void declaredLengthOverTheLimit_withItsBodyInTheSameWrite_is413_andClosesTheConnection()
      throws Exception {
    try (Fixture small = new Fixture(null, b -> {}, b -> b.maxBodyBytes(256));
        RawConnection conn = new RawConnection(small)) {
      byte[] body = new byte[300];
      java.util.Arrays.fill(body, (byte) ' ');
      body[0] = '{';
      body[body.length - 1] = '}';
      String head = RawConnection.post(CHAT, JSON, "Content-Length: " + body.length);
      byte[] head8 = head.getBytes(StandardCharsets.US_ASCII);
      byte[] whole = java.util.Arrays.copyOf(head8, head8.length + body.length);
      System.arraycopy(body, 0, whole, head8.length, body.length);
      RawConnection.Response r = conn.send(whole).read();
      r.answer().error(413, "body_too_large");
      assertThat(r.header("Connection")).as(r.head()).hasValue("close");
      assertThat(conn.closedWithin(2_000)).isTrue();
    }
  }

  @Test
  void expect100Continue_withARefusalDecidableFromHeaders_isAnsweredWithoutTheInterim100()
      throws Exception {
    String expect = "Expect: 100-continue";
    String length = "Content-Length: " + BODY.length;
    String media = "unsupported_media_type";
    refusedBeforeItsBody(
        RawConnection.post(CHAT, expect, "Content-Type: text/plain", length), 415, media);
    refusedBeforeItsBody(RawConnection.post(CHAT, expect, length), 415, media);
    refusedBeforeItsBody(
        RawConnection.post(CHAT, expect, JSON, "Content-Type: text/plain", length), 415, media);
    refusedBeforeItsBody(
        RawConnection.post(CHAT, expect, JSON, "Content-Encoding: gzip", length), 415, media);
    refusedBeforeItsBody(
        RawConnection.post(CHAT, expect, JSON, "Content-Length: 100000000"), 413, "body_too_large");
    refusedBeforeItsBody(
        RawConnection.post(CHAT, expect, JSON, "Transfer-Encoding: gzip, chunked"),
        501,
        "unsupported_transfer_coding");
    refusedBeforeItsBody(
        RawConnection.post("/healthz", expect, JSON, length), 405, "method_not_allowed");
    assertThat(sealed()).isZero();
    // A request the headers do not refuse is asked for its body, and served.
    try (RawConnection conn = new RawConnection(f)) {
      RawConnection.Response interim =
          conn.send(RawConnection.post(CHAT, expect, JSON, length)).read();
      assertThat(interim.status()).isEqualTo(100);
      RawConnection.Response answer = conn.send(BODY).read();
      assertThat(answer.status()).as(answer.body()).isEqualTo(200);
    }
    // While draining, a POST is refused before its body too.
    assertThat(f.server.drain(Duration.ofSeconds(5))).isTrue();
    refusedBeforeItsBody(RawConnection.post(CHAT, expect, JSON, length), 503, "shutting_down");
  }

  @Test
  void http2PriorKnowledgePreface_is426WithAJsonErrorNamingHttp11() throws Exception {
    RawConnection.Response r = exchange("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", new byte[0]);
    assertThat(r.answer().error(426, "http_426").get("message").asText()).contains("HTTP/1.1");
    assertThat(r.header("Upgrade")).hasValue("HTTP/1.1");
  }

  /**
   * A proxy's CONNECT was answered 404 "no endpoint at /" and its connection kept open, its {@code
   * Connection: close} notwithstanding, until the idle timeout.
   */
  @Test
  void connect_is405AndItsConnectionClosed() throws Exception {
    long before = sealed();
    try (RawConnection c = new RawConnection(f)) {
      RawConnection.Response r =
          c.send(
                  "CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n"
                      + "Connection: close\r\n\r\n")
              .read();
      assertThat(r.answer().error(405, "method_not_allowed").get("message").asText())
          .contains("CONNECT");
      assertThat(r.header("Connection")).hasValue("close");
      assertThat(c.closedWithin(5_000)).isTrue();
    }
    assertThat(sealed()).isEqualTo(before);
  }

  /**
   * HEAD was answered 405 "use GET here" wherever GET is served, so a load balancer probing {@code
   * HEAD /healthz} saw the server as down. It is now GET's answer without its body: the next
   * response on the connection starts right after the head.
   */
  @Test
  void head_isAnsweredAsGet_withoutTheBody() throws Exception {
    try (RawConnection c = new RawConnection(f)) {
      for (String path : List.of("/healthz", "/readyz", "/v1/models", "/v1/mesh/steward")) {
        RawConnection.Response head =
            c.send("HEAD " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n").readHead();
        assertThat(head.status()).as(path).isEqualTo(200);
        assertThat(c.send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n").read().status())
            .as("the response after HEAD " + path)
            .isEqualTo(200);
      }
    }
  }

  /**
   * A malformed chunk was refused 400 "Early EOF", as if the client had hung up; the refusal now
   * names the framing. Nothing is served.
   */
  @Test
  void malformedChunkedFraming_is400NamingTheFraming() throws Exception {
    long before = sealed();
    for (String framing :
        List.of("zz\r\nabc\r\n0\r\n\r\n", "-5\r\nabc\r\n0\r\n\r\n", "3\nabc\n0\n\n")) {
      RawConnection.Response r =
          exchange(
              RawConnection.post(CHAT, JSON, "Transfer-Encoding: chunked"),
              framing.getBytes(StandardCharsets.US_ASCII));
      assertThat(r.answer().error(400, "http_400").get("message").asText())
          .as(framing)
          .contains("chunked framing is malformed");
    }
    assertThat(sealed()).isEqualTo(before);
  }

  @Test
  void parserRefusal_ofAMethodOtherThanGetHeadOrPost_stillHasAJsonBody() throws Exception {
    // Jetty writes an error body for GET, HEAD and POST only, unless told otherwise.
    String head =
        "DELETE /v1/models HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Padding: "
            + "a".repeat(20_000)
            + "\r\n\r\n";
    exchange(head, new byte[0]).answer().error(431, "http_431");
  }
}
