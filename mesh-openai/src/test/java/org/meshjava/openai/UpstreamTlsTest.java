package org.meshjava.openai;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.InputStream;
import java.net.InetAddress;
import java.net.URI;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.core.EngineException;
import org.meshjava.core.Fidelity;

/**
 * An {@code https} upstream whose certificate the JVM does not trust (self-signed, made here) is
 * refused as a failed TLS handshake, whole or streamed: a typed {@link EngineException} (the
 * client's 502 {@code engine_failed}) whose words say TLS failed and never where the upstream is,
 * rather than an exchange served over a connection no one vouched for.
 */
class UpstreamTlsTest {
  @TempDir Path tmp;

  /** A PKCS#12 key store holding a fresh self-signed certificate for 127.0.0.1, made by keytool. */
  private Path selfSigned() throws Exception {
    Path store = tmp.resolve("upstream.p12");
    Process p =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "keytool").toString(),
                "-genkeypair",
                "-keystore",
                store.toString(),
                "-storetype",
                "PKCS12",
                "-storepass",
                "changeit",
                "-alias",
                "upstream",
                "-keyalg",
                "EC",
                "-dname",
                "CN=127.0.0.1",
                "-ext",
                "SAN=IP:127.0.0.1",
                "-validity",
                "2")
            .redirectErrorStream(true)
            .start();
    String said =
        new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(said).isZero();
    return store;
  }

  private static SSLServerSocket listen(Path store) throws Exception {
    KeyStore ks = KeyStore.getInstance("PKCS12");
    try (InputStream in = java.nio.file.Files.newInputStream(store)) {
      ks.load(in, "changeit".toCharArray());
    }
    KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
    kmf.init(ks, "changeit".toCharArray());
    SSLContext ctx = SSLContext.getInstance("TLS");
    ctx.init(kmf.getKeyManagers(), null, null);
    return (SSLServerSocket)
        ctx.getServerSocketFactory().createServerSocket(0, 50, InetAddress.getLoopbackAddress());
  }

  @Test
  void anUntrustedCertificate_isATypedTlsFailure_wholeOrStreamed() throws Exception {
    try (SSLServerSocket server = listen(selfSigned())) {
      Thread accepting =
          Thread.ofPlatform()
              .daemon()
              .start(
                  () -> {
                    while (!server.isClosed()) {
                      try (SSLSocket s = (SSLSocket) server.accept()) {
                        s.setSoTimeout(5_000);
                        s.startHandshake();
                      } catch (java.io.IOException refused) {
                        // The client refused the certificate: what this upstream is for.
                      }
                    }
                  });
      UpstreamEngine e =
          UpstreamEngine.builder()
              .name("remote-tls")
              .baseUri(URI.create("https://127.0.0.1:" + server.getLocalPort() + "/v1"))
              .model("upstream-model")
              .fidelity(Fidelity.F0)
              .costProfile(org.meshjava.core.CostProfile.perToken(1))
              .timeout(Duration.ofSeconds(10))
              .build();
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
      server.close();
      accepting.join(5_000);
    }
  }
}
