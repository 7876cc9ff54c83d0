package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.openai.PrivateCaException;
import org.meshjava.openai.UpstreamEngine;

/**
 * An upstream entry's {@code "trusted_certificates"} names a PEM file of private CA certificates
 * (read from the configuration file's folder when relative) that its TLS server is checked against
 * ({@link UpstreamEngine.Builder#trustedCertificates}); a file that cannot be used, or one given
 * for an {@code http} base URL, stops the start naming the entry and why.
 */
class ServeConfigTrustedCertificatesTest {
  /** A self-signed EC certificate (CN=private-ca.test, valid until 2126), made for this test. */
  private static final String CA =
      """
      -----BEGIN CERTIFICATE-----
      MIIBizCCATGgAwIBAgIUOTplsbGY4lQetIV+iqfCT93kcjgwCgYIKoZIzj0EAwIw
      GjEYMBYGA1UEAwwPcHJpdmF0ZS1jYS50ZXN0MCAXDTI2MTIwNzEyMzUzN1oYDzIx
      MjYxMTEzMTIzNTM3WjAaMRgwFgYDVQQDDA9wcml2YXRlLWNhLnRlc3QwWTATBgcq
      hkjOPQIBBggqhkjOPQMBBwNCAASCsWFaOr+xl5Dr9cRcfqa6/12ZzskhCM+PNo/7
      gOUHWALfErZQztOPK9Kb05Xc5a2lrMJBKE6cgCmMhSJmvUdvo1MwUTAdBgNVHQ4E
      FgQU6caQdNX6gdlwsbjs8YUzD7TLo7MwHwYDVR0jBBgwFoAU6caQdNX6gdlwsbjs
      8YUzD7TLo7MwDwYDVR0TAQH/BAUwAwEB/zAKBggqhkjOPQQDAgNIADBFAiEA+jYQ
      0obW620TxbpUGunApC1niX3Z0AOlqCg6daqJpzYCIFi2viTdNokK9AQjih2KPaRZ
      1Xf572CII4pVDsYY7cDf
      -----END CERTIFICATE-----
      """;

  @TempDir Path tmp;

  private Path config(String baseUrl, String caFile) throws Exception {
    return Files.writeString(
        tmp.resolve("mesh.json"),
        "{\"backends\": [{\"type\": \"upstream\", \"name\": \"u\", \"model\": \"m\","
            + " \"base_url\": \""
            + baseUrl
            + "\", \"trusted_certificates\": \""
            + caFile
            + "\"}]}");
  }

  @Test
  void aRelativeCaFile_isReadBesideTheConfiguration_forAnHttpsUpstream() throws Exception {
    Files.writeString(tmp.resolve("private-ca.pem"), CA);
    ServeConfig c = ServeConfig.read(config("https://upstream.internal/v1", "private-ca.pem"));
    assertThat(c.backends()).singleElement().isInstanceOf(UpstreamEngine.class);
  }

  @Test
  void aCaFileThatCannotBeUsed_stopsTheStart_namingTheEntryTheReasonAndTheFile() throws Exception {
    Path file = config("https://upstream.internal/v1", "absent.pem");
    assertThatThrownBy(() -> ServeConfig.read(file))
        .isInstanceOf(CliException.class)
        .hasCauseInstanceOf(PrivateCaException.class)
        .hasMessageStartingWith(file + ": backends[0] (upstream): trusted_certificates MISSING: ")
        .hasMessageContaining(tmp.resolve("absent.pem").toString());
  }

  @Test
  void aCaFileForAnHttpUpstream_isRefused_namingTheEntry() throws Exception {
    Files.writeString(tmp.resolve("private-ca.pem"), CA);
    Path file = config("http://127.0.0.1:9/v1", "private-ca.pem");
    assertThatThrownBy(() -> ServeConfig.read(file))
        .isInstanceOf(CliException.class)
        .hasMessageStartingWith(file + ": backends[0] (upstream): ")
        .hasMessageContaining("not https");
  }
}
