package org.meshjava.openai;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.net.http.HttpRequest;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 14 item 5: bodies in UTF-16 or UTF-32 were served, and {@code Content-Type} was never
 * checked. JSON on the wire is UTF-8 (RFC 8259): anything else is 400 {@code not_utf8}; a body not
 * sent as {@code application/json} is 415.
 */
class BodyEncodingTest {
  private static final String BODY = Fixture.chat("Hello.").toString();
  private static final Charset UTF_32BE = Charset.forName("UTF-32BE");
  private static final Charset UTF_32LE = Charset.forName("UTF-32LE");

  private final Fixture f = new Fixture();

  @AfterEach
  void close() {
    f.close();
  }

  private Fixture.Answer post(byte[] body, String contentType) {
    HttpRequest.Builder r =
        HttpRequest.newBuilder(f.uri("/v1/chat/completions"))
            .POST(HttpRequest.BodyPublishers.ofByteArray(body));
    if (contentType != null) {
      r.header("Content-Type", contentType);
    }
    return f.send(r);
  }

  private static byte[] concat(byte[] a, byte[] b) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.writeBytes(a);
    out.writeBytes(b);
    return out.toByteArray();
  }

  private static byte[] bytes(int... v) {
    byte[] b = new byte[v.length];
    for (int i = 0; i < v.length; i++) {
      b[i] = (byte) v[i];
    }
    return b;
  }

  @Test
  void body_inUtf16OrUtf32_withOrWithoutAByteOrderMark_is400NotUtf8() {
    List<byte[]> bodies =
        List.of(
            concat(bytes(0xFE, 0xFF), BODY.getBytes(StandardCharsets.UTF_16BE)),
            concat(bytes(0xFF, 0xFE), BODY.getBytes(StandardCharsets.UTF_16LE)),
            BODY.getBytes(StandardCharsets.UTF_16BE),
            BODY.getBytes(StandardCharsets.UTF_16LE),
            concat(bytes(0x00, 0x00, 0xFE, 0xFF), BODY.getBytes(UTF_32BE)),
            concat(bytes(0xFF, 0xFE, 0x00, 0x00), BODY.getBytes(UTF_32LE)),
            BODY.getBytes(UTF_32BE),
            BODY.getBytes(UTF_32LE),
            concat(bytes(0xEF, 0xBB, 0xBF), BODY.getBytes(StandardCharsets.UTF_8)));
    for (byte[] body : bodies) {
      post(body, "application/json").error(400, "not_utf8");
    }
    assertThat(post(BODY.getBytes(StandardCharsets.UTF_8), "application/json").status())
        .isEqualTo(200);
  }

  @Test
  void body_withBytesThatAreNotUtf8_is400NotUtf8() {
    String prefix = "{\"messages\":[{\"role\":\"user\",\"content\":\"a";
    String suffix = "\"}]}";
    List<byte[]> inside =
        List.of(
            bytes(0xED, 0xA0, 0x80), // an encoded lone high surrogate (CESU-8)
            bytes(0xED, 0xBF, 0xBF), // an encoded lone low surrogate
            bytes(0xC0, 0xAF), // an overlong '/'
            bytes(0xF4, 0x90, 0x80, 0x80), // above U+10FFFF
            bytes(0xFF), // never a UTF-8 byte
            bytes(0xE2, 0x82)); // cut short
    for (byte[] bad : inside) {
      byte[] body =
          concat(
              concat(prefix.getBytes(StandardCharsets.US_ASCII), bad),
              suffix.getBytes(StandardCharsets.US_ASCII));
      post(body, "application/json").error(400, "not_utf8");
    }
  }

  @Test
  void body_notSentAsJson_is415() {
    byte[] body = BODY.getBytes(StandardCharsets.UTF_8);
    for (String type :
        new String[] {
          null,
          "text/plain",
          "application/x-www-form-urlencoded",
          "multipart/form-data; boundary=x",
          "application/json; charset=utf-16",
          "application/jsonx",
          "application/json; foo=bar"
        }) {
      post(body, type).error(415, "unsupported_media_type");
    }
    for (String type :
        new String[] {
          "application/json",
          "Application/JSON",
          "application/json; charset=UTF-8",
          "application/json;charset=\"utf-8\""
        }) {
      assertThat(post(body, type).status()).as(type).isEqualTo(200);
    }
  }

  /** Posts {@code body} with the given header fields, name and value in turn. */
  private Fixture.Answer postWith(byte[] body, String... fields) {
    HttpRequest.Builder r =
        HttpRequest.newBuilder(f.uri("/v1/chat/completions"))
            .POST(HttpRequest.BodyPublishers.ofByteArray(body));
    for (int i = 0; i < fields.length; i += 2) {
      r.header(fields[i], fields[i + 1]);
    }
    return f.send(r);
  }

  @Test
  void body_declaredCompressedOrWithTwoContentTypes_is415_identityIsServed() throws Exception {
    byte[] body = BODY.getBytes(StandardCharsets.UTF_8);
    ByteArrayOutputStream zipped = new ByteArrayOutputStream();
    try (java.util.zip.GZIPOutputStream gz = new java.util.zip.GZIPOutputStream(zipped)) {
      gz.write(body);
    }
    // A gzipped body is not decoded: it is refused for its encoding, not as bytes that are not
    // UTF-8; nor is a plain body that claims an encoding read as if it had none.
    for (byte[] sent : List.of(zipped.toByteArray(), body)) {
      postWith(sent, "Content-Type", "application/json", "Content-Encoding", "gzip")
          .error(415, "unsupported_media_type");
    }
    postWith(body, "Content-Type", "application/json", "Content-Type", "text/plain")
        .error(415, "unsupported_media_type");
    assertThat(
            postWith(body, "Content-Type", "application/json", "Content-Encoding", "identity")
                .status())
        .isEqualTo(200);
  }

  @Test
  void jcpPresentation_explicitNull_is400RatherThanAnUngrantedServe() {
    String body =
        "{\"messages\":[{\"role\":\"user\",\"content\":\"x\"}],\"jcp_presentation\":null}";
    f.post("/v1/chat/completions", body).error(400, "malformed_presentation");
    f.post("/v1/responses", "{\"input\":\"x\",\"jcp_presentation\":null}")
        .error(400, "malformed_presentation");
  }
}
