package org.meshjava.openai;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * The CA certificates one upstream's TLS server is checked against in place of the JVM's trust
 * store: an operator's private CA, read from a PEM file when the engine is built. Two sets are
 * equal when they hold the same certificates in the same order (X.509 certificates compare by their
 * encoding), so upstreams given the same file share one client. Immutable.
 */
record TrustedCas(List<X509Certificate> certificates) {
  /** The largest file read: a CA bundle is kilobytes; a larger file is no bundle. */
  static final long MAX_FILE_BYTES = 4L << 20;

  private static final String BEGIN = "-----BEGIN CERTIFICATE-----";

  private static final Pattern BLOCK =
      Pattern.compile(BEGIN + "([A-Za-z0-9+/=\\s]*?)-----END CERTIFICATE-----");

  TrustedCas {
    certificates = List.copyOf(certificates);
    if (certificates.isEmpty()) {
      throw new IllegalArgumentException("a trusted CA set holds at least one certificate");
    }
  }

  /**
   * The certificates of the PEM file at {@code file}: each {@code CERTIFICATE} block, in order;
   * text outside the blocks (comments, as in a distribution's bundle) is ignored.
   *
   * @throws PrivateCaException if the file is missing, unreadable, empty or holds no PEM
   *     certificate, or a block that is not one
   */
  static TrustedCas read(Path file) {
    byte[] bytes;
    try {
      // Only a regular file (a link to one is followed, as a distribution's bundle often is): a
      // pipe would hold the start until someone writes to it, a device like /dev/zero never ends.
      if (!Files.readAttributes(file, BasicFileAttributes.class).isRegularFile()) {
        throw refused(PrivateCaException.Reason.UNREADABLE, file, "is not a regular file", null);
      }
      // Bounded as it is read, not by the size asked first: a file growing in between, or one
      // whose size the file system does not know, is read no further than the bound.
      try (InputStream in = Files.newInputStream(file)) {
        bytes = in.readNBytes(Math.toIntExact(MAX_FILE_BYTES + 1));
      }
      if (bytes.length > MAX_FILE_BYTES) {
        throw refused(
            PrivateCaException.Reason.NOT_PEM_CERTIFICATES,
            file,
            "is larger than " + MAX_FILE_BYTES + " bytes, which no CA bundle is",
            null);
      }
    } catch (NoSuchFileException e) {
      throw refused(PrivateCaException.Reason.MISSING, file, "does not exist", e);
    } catch (IOException | SecurityException e) {
      throw refused(
          PrivateCaException.Reason.UNREADABLE,
          file,
          "cannot be read (" + e.getClass().getSimpleName() + ")",
          e);
    }
    String text = new String(bytes, StandardCharsets.ISO_8859_1);
    if (text.isBlank()) {
      throw refused(PrivateCaException.Reason.EMPTY, file, "is empty", null);
    }
    List<X509Certificate> read = new ArrayList<>();
    Matcher m = BLOCK.matcher(text);
    try {
      CertificateFactory x509 = CertificateFactory.getInstance("X.509");
      // Every BEGIN line starts a block that must end as PEM: one cut short (a truncated copy) or
      // holding a character base64 has not would otherwise be skipped, and the upstream its
      // certificate signs refused at a serve rather than the file at start.
      for (int at = text.indexOf(BEGIN); at >= 0; at = text.indexOf(BEGIN, m.end())) {
        if (!m.region(at, text.length()).lookingAt()) {
          throw new IllegalArgumentException("not a complete PEM block");
        }
        byte[] der = Base64.getMimeDecoder().decode(m.group(1));
        read.add((X509Certificate) x509.generateCertificate(new ByteArrayInputStream(der)));
      }
    } catch (GeneralSecurityException | IllegalArgumentException e) {
      throw refused(
          PrivateCaException.Reason.NOT_PEM_CERTIFICATES,
          file,
          "holds a CERTIFICATE block (number "
              + (read.size() + 1)
              + ") that is no X.509 certificate",
          e);
    }
    if (read.isEmpty()) {
      throw refused(
          PrivateCaException.Reason.NOT_PEM_CERTIFICATES,
          file,
          "holds no PEM certificate (-----BEGIN CERTIFICATE----- ... -----END CERTIFICATE-----)",
          null);
    }
    return new TrustedCas(read);
  }

  /** A key store whose trusted entries are these certificates, for a TLS client's trust manager. */
  KeyStore keyStore() {
    try {
      KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
      store.load(null, null);
      for (int i = 0; i < certificates.size(); i++) {
        store.setCertificateEntry("ca-" + i, certificates.get(i));
      }
      return store;
    } catch (IOException | GeneralSecurityException e) {
      // An empty in-memory store of the JVM's own type always loads and takes certificates.
      throw new IllegalStateException("the JVM refused an in-memory trust store", e);
    }
  }

  private static PrivateCaException refused(
      PrivateCaException.Reason reason, Path file, String what, @Nullable Throwable cause) {
    return new PrivateCaException(
        reason,
        file,
        "the upstream's trusted CA file "
            + file
            + " "
            + what
            + ": give a PEM file of the CA certificates that sign the upstream's TLS certificate",
        cause);
  }
}
