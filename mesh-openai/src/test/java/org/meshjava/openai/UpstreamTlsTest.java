package org.meshjava.openai;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.core.EngineException;
import org.meshjava.core.EngineResult;

/**
 * An {@code https} upstream whose certificate the JVM does not trust (self-signed, made here once
 * for the class) is refused as a failed TLS handshake, whole or streamed: a typed {@link
 * EngineException} (the client's 502 {@code engine_failed}) whose words say TLS failed and never
 * where the upstream is, rather than an exchange served over a connection no one vouched for. An
 * upstream told to trust that certificate as its private CA ({@link
 * UpstreamEngine.Builder#trustedCertificates}) is served by the same server; a CA file that cannot
 * be used is refused when the engine is built, with a typed reason.
 */
class UpstreamTlsTest {
  private static final String USAGE = "{\"prompt_tokens\":3,\"completion_tokens\":2}";

  @TempDir static Path tmp;
  private static Path ca;
  private static RawUpstream upstream;

  @BeforeAll
  static void start() throws Exception {
    Path store = SelfSignedTls.generate(tmp);
    ca = SelfSignedTls.pem(store, tmp.resolve("private-ca.pem"));
    byte[] body = ScriptedUpstream.reply("ok", "stop", USAGE).getBytes(StandardCharsets.UTF_8);
    byte[] head =
        ("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: "
                + body.length
                + "\r\nConnection: close\r\n\r\n")
            .getBytes(StandardCharsets.US_ASCII);
    upstream =
        new RawUpstream(
            SelfSignedTls.listen(store),
            out -> {
              out.write(head);
              out.write(body);
            });
  }

  @AfterAll
  static void stop() throws Exception {
    upstream.close();
  }

  @Test
  void anUntrustedCertificate_isATypedTlsFailure_wholeOrStreamed() throws Exception {
    UpstreamEngine e =
        Fixture.remoteBuilder(upstream.base()).timeout(Duration.ofSeconds(10)).build();
    ScriptedUpstream.Asked a = ScriptedUpstream.Asked.chat("Count me.", 8);
    for (boolean stream : new boolean[] {false, true}) {
      assertThatThrownBy(
              () -> {
                if (stream) {
                  e.serve(a.request(), a.payload(), token -> true);
                } else {
                  e.serve(a.request(), a.payload());
                }
              })
          .as(stream ? "streamed" : "whole")
          .isInstanceOf(EngineException.class)
          .hasMessageContaining("the TLS handshake or session failed")
          .hasMessageNotContaining("127.0.0.1");
    }
  }

  @Test
  void anUpstreamTrustingThePrivateCa_isServed_byTheServerTheDefaultStoreRefuses()
      throws Exception {
    UpstreamEngine trusting =
        Fixture.remoteBuilder(upstream.base())
            .timeout(Duration.ofSeconds(10))
            .trustedCertificates(ca)
            .build();
    UpstreamEngine plain =
        Fixture.remoteBuilder(upstream.base()).timeout(Duration.ofSeconds(10)).build();
    ScriptedUpstream.Asked a = ScriptedUpstream.Asked.chat("Count me.", 8);
    EngineResult served = trusting.serve(a.request(), a.payload());
    assertThat(served.outcome().tokensOut()).isEqualTo(2);
    assertThatThrownBy(() -> plain.serve(a.request(), a.payload()))
        .isInstanceOf(EngineException.class)
        .hasMessageContaining("the TLS handshake or session failed");
  }

  @Test
  void aCaFileThatCannotBeUsed_isRefusedAtBuild_withItsReason() throws Exception {
    Path empty = Files.writeString(tmp.resolve("empty.pem"), " \n");
    Path text = Files.writeString(tmp.resolve("text.pem"), "not a certificate\n");
    Path broken =
        Files.writeString(
            tmp.resolve("broken.pem"),
            "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n");
    Path folder = Files.createDirectory(tmp.resolve("folder.pem"));
    assertRefused(tmp.resolve("absent.pem"), PrivateCaException.Reason.MISSING);
    assertRefused(folder, PrivateCaException.Reason.UNREADABLE);
    assertRefused(empty, PrivateCaException.Reason.EMPTY);
    assertRefused(text, PrivateCaException.Reason.NOT_PEM_CERTIFICATES);
    assertRefused(broken, PrivateCaException.Reason.NOT_PEM_CERTIFICATES);
    // A CA for an upstream reached over plain http checks nothing: refused, not ignored.
    assertThatThrownBy(
            () ->
                Fixture.remoteBuilder(java.net.URI.create("http://127.0.0.1:1/v1"))
                    .trustedCertificates(ca)
                    .build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("not https");
  }

  @Test
  void aBundleWithOneGoodAndOneCutShortOrGarbledBlock_isRefused_notReadAsTheGoodOneAlone()
      throws Exception {
    String good = Files.readString(ca);
    Path cut =
        Files.writeString(
            tmp.resolve("cut.pem"), good + "-----BEGIN CERTIFICATE-----\nMIIBkTCB+wIJAK\n");
    Path garbled =
        Files.writeString(
            tmp.resolve("garbled.pem"),
            good + "-----BEGIN CERTIFICATE-----\nMIIB*kTCB\n-----END CERTIFICATE-----\n");
    assertRefused(cut, PrivateCaException.Reason.NOT_PEM_CERTIFICATES);
    assertRefused(garbled, PrivateCaException.Reason.NOT_PEM_CERTIFICATES);
    // Other PEM blocks around the certificates (a key, a CRL) are text outside them, as before.
    Path mixed =
        Files.writeString(
            tmp.resolve("mixed.pem"),
            "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n" + good);
    assertThat(Fixture.remoteBuilder(upstream.base()).trustedCertificates(mixed)).isNotNull();
  }

  @Test
  void aCaFileThatIsNoRegularFile_isRefused_withoutReadingItForever() throws Exception {
    Path endless = Path.of("/dev/zero");
    org.junit.jupiter.api.Assumptions.assumeTrue(Files.exists(endless), "a /dev/zero to read");
    Path link = Files.createSymbolicLink(tmp.resolve("endless.pem"), endless);
    assertRefused(link, PrivateCaException.Reason.UNREADABLE);
    // A link to a regular file, as a distribution's bundle often is, is read through.
    Path toCa = Files.createSymbolicLink(tmp.resolve("linked.pem"), ca);
    assertThat(Fixture.remoteBuilder(upstream.base()).trustedCertificates(toCa)).isNotNull();
  }

  private static void assertRefused(Path file, PrivateCaException.Reason reason) {
    assertThatThrownBy(() -> Fixture.remoteBuilder(upstream.base()).trustedCertificates(file))
        .as(file.getFileName().toString())
        .isInstanceOfSatisfying(
            PrivateCaException.class,
            e -> {
              assertThat(e.reason()).isEqualTo(reason);
              assertThat(e.file()).isEqualTo(file);
              assertThat(e.getMessage()).contains(file.toString(), "PEM");
            });
  }
}
