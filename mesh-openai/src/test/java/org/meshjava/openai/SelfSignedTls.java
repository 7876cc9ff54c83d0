package org.meshjava.openai;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.math.BigInteger;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Base64;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLServerSocket;

/**
 * A TLS server certificate for 127.0.0.1 that the JVM does not trust (self-signed, made fresh for
 * each class that asks), the loopback listener that presents it, and the certificate as a PEM file:
 * a self-signed certificate is its own CA, so that file is the private CA an upstream may be told
 * to trust. The certificate (an EC P-256 key, CN and IP SAN 127.0.0.1, a critical CA basic
 * constraint, two days valid) is written in DER here and signed with the JDK's ECDSA: keytool,
 * which made it before, ran as a JVM of its own, a second or more and several under load.
 */
final class SelfSignedTls {
  private static final String PASS = "changeit";
  private static final String ALIAS = "upstream";

  /** ecdsa-with-SHA256 (1.2.840.10045.4.3.2), with no parameters (RFC 5758 §3.2). */
  private static final byte[] ECDSA_WITH_SHA256 = {
    0x06, 0x08, 0x2a, (byte) 0x86, 0x48, (byte) 0xce, 0x3d, 0x04, 0x03, 0x02
  };

  private static final byte[] COMMON_NAME = {0x06, 0x03, 0x55, 0x04, 0x03};
  private static final byte[] SUBJECT_ALT_NAME = {0x06, 0x03, 0x55, 0x1d, 0x11};
  private static final byte[] BASIC_CONSTRAINTS = {0x06, 0x03, 0x55, 0x1d, 0x13};
  private static final byte[] TRUE = {0x01, 0x01, (byte) 0xff};

  private static final DateTimeFormatter UTC_TIME =
      DateTimeFormatter.ofPattern("yyMMddHHmmss'Z'").withZone(ZoneOffset.UTC);

  private SelfSignedTls() {}

  /** A PKCS#12 key store in {@code dir} holding a fresh self-signed certificate for 127.0.0.1. */
  static Path generate(Path dir) throws Exception {
    KeyPairGenerator kpg = KeyPairGenerator.getInstance("EC");
    kpg.initialize(new ECGenParameterSpec("secp256r1"));
    KeyPair pair = kpg.generateKeyPair();
    byte[] name =
        der(
            0x30,
            der(
                0x31,
                der(
                    0x30,
                    COMMON_NAME,
                    der(0x0c, "127.0.0.1".getBytes(StandardCharsets.US_ASCII)))));
    Instant now = Instant.now();
    byte[] extensions =
        der(
            0xa3,
            der(
                0x30,
                der(
                    0x30,
                    SUBJECT_ALT_NAME,
                    der(0x04, der(0x30, der(0x87, InetAddress.getLoopbackAddress().getAddress())))),
                der(0x30, BASIC_CONSTRAINTS, TRUE, der(0x04, der(0x30, TRUE)))));
    byte[] tbs =
        der(
            0x30,
            der(0xa0, der(0x02, new byte[] {2})),
            der(0x02, new BigInteger(63, new SecureRandom()).add(BigInteger.ONE).toByteArray()),
            der(0x30, ECDSA_WITH_SHA256),
            name,
            der(
                0x30,
                utcTime(now.minus(Duration.ofHours(1))),
                utcTime(now.plus(Duration.ofDays(2)))),
            name,
            pair.getPublic().getEncoded(),
            extensions);
    Signature signer = Signature.getInstance("SHA256withECDSA");
    signer.initSign(pair.getPrivate());
    signer.update(tbs);
    byte[] signature = signer.sign();
    byte[] bitString = new byte[signature.length + 1];
    System.arraycopy(signature, 0, bitString, 1, signature.length);
    X509Certificate cert =
        (X509Certificate)
            CertificateFactory.getInstance("X.509")
                .generateCertificate(
                    new ByteArrayInputStream(
                        der(0x30, tbs, der(0x30, ECDSA_WITH_SHA256), der(0x03, bitString))));
    cert.verify(pair.getPublic());
    KeyStore ks = KeyStore.getInstance("PKCS12");
    ks.load(null, null);
    ks.setKeyEntry(ALIAS, pair.getPrivate(), PASS.toCharArray(), new Certificate[] {cert});
    Path store = dir.resolve("upstream.p12");
    try (OutputStream out = Files.newOutputStream(store)) {
      ks.store(out, PASS.toCharArray());
    }
    return store;
  }

  private static byte[] utcTime(Instant t) {
    return der(0x17, UTC_TIME.format(t).getBytes(StandardCharsets.US_ASCII));
  }

  /** One DER element: {@code tag}, its definite length, then {@code parts} one after another. */
  private static byte[] der(int tag, byte[]... parts) {
    ByteArrayOutputStream body = new ByteArrayOutputStream();
    for (byte[] part : parts) {
      body.writeBytes(part);
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.write(tag);
    int n = body.size();
    if (n < 0x80) {
      out.write(n);
    } else if (n < 0x100) {
      out.write(0x81);
      out.write(n);
    } else {
      out.write(0x82);
      out.write(n >> 8);
      out.write(n);
    }
    out.writeBytes(body.toByteArray());
    return out.toByteArray();
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
