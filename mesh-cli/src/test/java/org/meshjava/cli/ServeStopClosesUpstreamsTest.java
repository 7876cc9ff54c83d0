package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code mesh serve} closes the upstream engines it builds from its configuration once it stops:
 * the steward never closes the engines it is given, and an upstream trusting its own CAs holds an
 * HTTP client of its own (a thread pool and a scheduler), stopped when the last engine holding it
 * is closed.
 */
class ServeStopClosesUpstreamsTest {
  /**
   * A self-signed EC certificate (CN=serve-stop-ca.test, valid until 2126), made for this test and
   * used by no other, so the client trusting it is this test's alone.
   */
  private static final String CA =
      """
      -----BEGIN CERTIFICATE-----
      MIIBkDCCATegAwIBAgIUME+80Yf36YyX9sBY0r2wcEtR3a4wCgYIKoZIzj0EAwIw
      HTEbMBkGA1UEAwwSc2VydmUtc3RvcC1jYS50ZXN0MCAXDTI2MTIwNzE3NTkyNloY
      DzIxMjYxMTEzMTc1OTI2WjAdMRswGQYDVQQDDBJzZXJ2ZS1zdG9wLWNhLnRlc3Qw
      WTATBgcqhkjOPQIBBggqhkjOPQMBBwNCAARMdj89ZA0GiRlnOlI08rLWqBgZZUv/
      EuTyqt+RkcjH4eiaXIUhZ8MdbxGoJdFQJnjr8cM1bJkftxy15TVbF4Qyo1MwUTAd
      BgNVHQ4EFgQUTu54YzVKKAGjAANyLY50Hzx52yMwHwYDVR0jBBgwFoAUTu54YzVK
      KAGjAANyLY50Hzx52yMwDwYDVR0TAQH/BAUwAwEB/zAKBggqhkjOPQQDAgNHADBE
      AiBl+QleqS67hvAI4CtSMckHigmJ1TxmzlL2RmSmcpnmiwIgC13E6gzPEB03uFT+
      jlHz6jkUQBOL0zOX1gYVw1nhevg=
      -----END CERTIFICATE-----
      """;

  /**
   * Another (CN=serve-refused-ca.test, valid until 2126), for the refused start: a client trusting
   * {@link #CA} left running by the other case, had the fix failed, would be shared by this one,
   * which then saw no thread of its own start.
   */
  private static final String REFUSED_CA =
      """
      -----BEGIN CERTIFICATE-----
      MIIBlzCCAT2gAwIBAgIUDcnlh/wVhhm+gyrzZN37sdl58RAwCgYIKoZIzj0EAwIw
      IDEeMBwGA1UEAwwVc2VydmUtcmVmdXNlZC1jYS50ZXN0MCAXDTI2MTIwNzE4NTAz
      MFoYDzIxMjYxMTEzMTg1MDMwWjAgMR4wHAYDVQQDDBVzZXJ2ZS1yZWZ1c2VkLWNh
      LnRlc3QwWTATBgcqhkjOPQIBBggqhkjOPQMBBwNCAASckLlmJTrLWeLiiJ3BvLoO
      LvxRTn35xTvuUXnB3eYStfQjW+v8kXNBWb6InF03I1yGCJQm5bNS1Y6S5reLNJZY
      o1MwUTAdBgNVHQ4EFgQUAOJe6tpppyEiZQSisvl5YXaXsFUwHwYDVR0jBBgwFoAU
      AOJe6tpppyEiZQSisvl5YXaXsFUwDwYDVR0TAQH/BAUwAwEB/zAKBggqhkjOPQQD
      AgNIADBFAiBSrlLfODNCsdMBxGhnynO3dhU2Eu0ckqPS6qsCMLcT/QIhAOgemCje
      CFWpbxeM3z/mcVqlVUYbt9S0Qs2fbWqh6dpe
      -----END CERTIFICATE-----
      """;

  /**
   * A third (CN=serve-config-refused-ca.test, valid until 2126), for the configuration refused
   * after its upstream was built, so that its client is that case's alone.
   */
  private static final String CONFIG_REFUSED_CA =
      """
      -----BEGIN CERTIFICATE-----
      MIIBpDCCAUugAwIBAgIUCkCaIFEQGxYeKL1jlaOUgXsLFQQwCgYIKoZIzj0EAwIw
      JzElMCMGA1UEAwwcc2VydmUtY29uZmlnLXJlZnVzZWQtY2EudGVzdDAgFw0yNjEy
      MDcxOTExMTdaGA8yMTI2MTExMzE5MTExN1owJzElMCMGA1UEAwwcc2VydmUtY29u
      ZmlnLXJlZnVzZWQtY2EudGVzdDBZMBMGByqGSM49AgEGCCqGSM49AwEHA0IABOhx
      36Y3JTHMGPnPtsPrxKbU5epyxmte5qQ+IQYiJj94izU3y6c9wi4HC7UvBoGCjvT7
      PnKx7xiMnpo4PRmc7LmjUzBRMB0GA1UdDgQWBBQT1Ts7uniUBrfOTxLbfBRABhoE
      1DAfBgNVHSMEGDAWgBQT1Ts7uniUBrfOTxLbfBRABhoE1DAPBgNVHRMBAf8EBTAD
      AQH/MAoGCCqGSM49BAMCA0cAMEQCICQQNiZWzhGDTZIl4Px2MCenKVETHdoe3qdX
      ufZbBMPQAiAKIexPLSlTzy9K3Qj6VRVjSMh4vM6eHqGly8N3JI0+hg==
      -----END CERTIFICATE-----
      """;

  @TempDir Path tmp;

  /** A configuration of one upstream trusting {@code ca}: building it starts that CA's client. */
  private Path config(String ca) throws Exception {
    Files.writeString(tmp.resolve("ca.pem"), ca);
    return Files.writeString(
        tmp.resolve("mesh.json"),
        "{\"port\": 0, \"meter\": \"estimator\", \"backends\": [{\"type\": \"upstream\","
            + " \"name\": \"u\", \"model\": \"m\", \"base_url\": \"https://upstream.internal/v1\","
            + " \"trusted_certificates\": \"ca.pem\"}]}");
  }

  /**
   * Which of {@code threads} are still alive, waited for up to 10 s: the client's stop joins its
   * pool's threads, and its scheduler's may take a moment more to end.
   */
  private static List<Thread> aliveAfterAWait(Set<Thread> threads) throws InterruptedException {
    long deadline = System.nanoTime() + 10_000_000_000L;
    List<Thread> alive = threads.stream().filter(Thread::isAlive).toList();
    while (!alive.isEmpty() && System.nanoTime() < deadline) {
      Thread.sleep(20);
      alive = threads.stream().filter(Thread::isAlive).toList();
    }
    return alive;
  }

  /** The upstream clients' threads alive now (every client names its threads so). */
  private static Set<Thread> upstreamThreads() {
    Set<Thread> threads = new HashSet<>();
    for (Thread t : Thread.getAllStackTraces().keySet()) {
      if (t.getName().startsWith("mesh-upstream")) {
        threads.add(t);
      }
    }
    return threads;
  }

  /**
   * Regression: nothing closed the upstream engines {@code mesh serve} built, so the client of one
   * trusting its own CAs, with its threads, outlived the stop (for good, in a JVM that runs the
   * command in process). Slow (a server started and stopped); the default suite's sample is {@link
   * #aStartRefusedOnceTheConfigurationIsRead_closesTheUpstreamEngines}.
   */
  @Test
  @Tag("slow")
  void theStop_closesTheUpstreamEngines_andTheirOwnClientsThreadsEnd() throws Exception {
    Path config = config(CA);
    Set<Thread> before = upstreamThreads();
    InProcessServe serve = InProcessServe.start(tmp.resolve("port"), "--config", config.toString());
    Set<Thread> started;
    try (serve) {
      started = upstreamThreads();
      started.removeAll(before);
      assertThat(started).as("the threads of the client trusting the CA").isNotEmpty();
    }
    assertThat(serve.run().code()).as(serve.run().err()).isZero();
    assertThat(aliveAfterAWait(started))
        .as("the upstream client's threads after the stop")
        .isEmpty();
  }

  /**
   * The same for a start refused once the configuration is read (its engines built): the console
   * asked for on the API's own port. Regression: the client and its threads outlived the refusal.
   */
  @Test
  void aStartRefusedOnceTheConfigurationIsRead_closesTheUpstreamEngines() throws Exception {
    Path config = config(REFUSED_CA);
    Set<Thread> before = upstreamThreads();
    MeshCommandTest.Run run =
        MeshCommandTest.mesh(
            "serve",
            "--config",
            config.toString(),
            "--console",
            "--port",
            "21250",
            "--console-port",
            "21250");
    assertThat(run.code()).as(run.err()).isEqualTo(1);
    assertThat(run.err()).contains("is the API's port too");
    Set<Thread> started = upstreamThreads();
    started.removeAll(before);
    assertThat(aliveAfterAWait(started))
        .as("the upstream client's threads after the refusal")
        .isEmpty();
  }

  /**
   * A configuration refused at an entry after an upstream's (its engine built, its client started)
   * closes that engine: no steward, nor {@code mesh serve}'s stop, ever sees it. Regression: the
   * client and its threads outlived the refusal.
   */
  @Test
  void aConfigurationRefusedAfterAnUpstreamIsBuilt_closesIt() throws Exception {
    Files.writeString(tmp.resolve("ca.pem"), CONFIG_REFUSED_CA);
    Path config =
        Files.writeString(
            tmp.resolve("mesh.json"),
            "{\"backends\": [{\"type\": \"upstream\", \"name\": \"u\", \"model\": \"m\","
                + " \"base_url\": \"https://upstream.internal/v1\","
                + " \"trusted_certificates\": \"ca.pem\"}, 7]}");
    Set<Thread> before = upstreamThreads();

    assertThatThrownBy(() -> ServeConfig.read(config))
        .isInstanceOf(CliException.class)
        .hasMessageContaining("backends[1] is an object");
    Set<Thread> started = upstreamThreads();
    started.removeAll(before);
    assertThat(aliveAfterAWait(started))
        .as("the upstream client's threads after the refusal")
        .isEmpty();
  }
}
