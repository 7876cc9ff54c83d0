package org.meshjava.openai;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.util.Base64;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLServerSocket;

/**
 * A TLS server certificate for 127.0.0.1 that the JVM does not trust (self-signed, made by keytool
 * in a folder the test owns), the loopback listener that presents it, and the certificate as a PEM
 * file: a self-signed certificate is its own CA, so that file is the private CA an upstream may be
 * told to trust. keytool takes a second or more under load: a class makes one and shares it.
 */
final class SelfSignedTls {
  private static final String PASS = "changeit";
  private static final String ALIAS = "upstream";

  private SelfSignedTls() {}

  /** A PKCS#12 key store in {@code dir} holding a fresh self-signed certificate for 127.0.0.1. */
  static Path generate(Path dir) throws Exception {
    Path store = dir.resolve("upstream.p12");
    Process p =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "keytool").toString(),
                "-genkeypair",
                "-keystore",
                store.toString(),
                "-storetype",
                "PKCS12",
                "-storepass",
                PASS,
                "-alias",
                ALIAS,
                "-keyalg",
                "EC",
                "-dname",
                "CN=127.0.0.1",
                "-ext",
                "SAN=IP:127.0.0.1",
                "-ext",
                "BC:c=ca:true",
                "-validity",
                "2")
            .redirectErrorStream(true)
            .start();
    String said = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(said).isZero();
    return store;
  }

  private static KeyStore load(Path store) throws Exception {
    KeyStore ks = KeyStore.getInstance("PKCS12");
    try (InputStream in = Files.newInputStream(store)) {
      ks.load(in, PASS.toCharArray());
    }
    return ks;
  }

  /** A loopback TLS listener presenting {@code store}'s certificate. */
  static SSLServerSocket listen(Path store) throws Exception {
    KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
    kmf.init(load(store), PASS.toCharArray());
    SSLContext ctx = SSLContext.getInstance("TLS");
    ctx.init(kmf.getKeyManagers(), null, null);
    return (SSLServerSocket)
        ctx.getServerSocketFactory().createServerSocket(0, 50, InetAddress.getLoopbackAddress());
  }

  /**
   * {@code store}'s certificate written as a PEM file at {@code pem}, with a comment line first.
   */
  static Path pem(Path store, Path pem) throws Exception {
    byte[] der = load(store).getCertificate(ALIAS).getEncoded();
    String text =
        "# the upstream's private CA\n-----BEGIN CERTIFICATE-----\n"
            + Base64.getMimeEncoder(64, new byte[] {'\n'}).encodeToString(der)
            + "\n-----END CERTIFICATE-----\n";
    Files.writeString(pem, text, StandardCharsets.US_ASCII);
    return pem;
  }
}
