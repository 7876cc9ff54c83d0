package org.meshjava.openai;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.client.ContentResponse;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.util.component.LifeCycle;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.core.EngineException;

/**
 * What an upstream engine holds is let go when it is closed: the HTTP client trusting its own CA
 * certificates ({@link UpstreamEngine.Builder#trustedCertificates}) stops, with its threads, once
 * the last engine given the same certificates is closed, and an engine built afterwards gets a new
 * client that works; its idle keep-alive connections close. Before, a client per distinct CA set
 * lived for the process, so an embedder rebuilding its engines for each new CA file kept one per
 * file. The certificates are fixed self-signed CAs (their keys are not kept: no exchange here is
 * TLS, so none is ever checked against them).
 */
class UpstreamClientReleaseTest {
  private static final String CA_A =
      "-----BEGIN CERTIFICATE-----\n"
          + "MIIBkjCCATmgAwIBAgIUSuUU8uW3XqSFCCNUS0SDtJbjmtQwCgYIKoZIzj0EAwIw\n"
          + "HjEcMBoGA1UEAwwTbWVzaC1qYXZhIHRlc3QgQ0EgYTAgFw0yNjEyMDcxNDU1MDZa\n"
          + "GA8yMTI2MTExMzE0NTUwNlowHjEcMBoGA1UEAwwTbWVzaC1qYXZhIHRlc3QgQ0Eg\n"
          + "YTBZMBMGByqGSM49AgEGCCqGSM49AwEHA0IABAn1WSMyVEBrgqEqBoBs4SUHFHVY\n"
          + "J8M6BYA/re5s8/kpLOHUgwfRDnphL7D1polGqavrpNxyUdf9EBHGn5f7dS+jUzBR\n"
          + "MB0GA1UdDgQWBBSArrDRxt+/QdOFtimWHk7Kuz+YnzAfBgNVHSMEGDAWgBSArrDR\n"
          + "xt+/QdOFtimWHk7Kuz+YnzAPBgNVHRMBAf8EBTADAQH/MAoGCCqGSM49BAMCA0cA\n"
          + "MEQCIFe+guoXAPLwEDUwCZF4f/mr6Jy1VPvIYltq+TllnlajAiBahNovyve9mbDK\n"
          + "PzZTJJUIVmsn9Ez0YC5w1VqieDvexw==\n"
          + "-----END CERTIFICATE-----\n";

  private static final String CA_B =
      "-----BEGIN CERTIFICATE-----\n"
          + "MIIBkjCCATmgAwIBAgIUdAqsoIvzd3HDnCnM6rF7xzGMccIwCgYIKoZIzj0EAwIw\n"
          + "HjEcMBoGA1UEAwwTbWVzaC1qYXZhIHRlc3QgQ0EgYjAgFw0yNjEyMDcxNDU1MDZa\n"
          + "GA8yMTI2MTExMzE0NTUwNlowHjEcMBoGA1UEAwwTbWVzaC1qYXZhIHRlc3QgQ0Eg\n"
          + "YjBZMBMGByqGSM49AgEGCCqGSM49AwEHA0IABLBvvZR0c/SEC7bTRZuNzPbqJhbS\n"
          + "tntnCnfOVeU383CshYIGsbmP4EtZSZgaFtoSUIFp6/hF8qPG1P2vEQen56+jUzBR\n"
          + "MB0GA1UdDgQWBBQvjNDjRJNv7AGiTumpSDp9x8mDJDAfBgNVHSMEGDAWgBQvjNDj\n"
          + "RJNv7AGiTumpSDp9x8mDJDAPBgNVHRMBAf8EBTADAQH/MAoGCCqGSM49BAMCA0cA\n"
          + "MEQCIDQ7fdIV2S9ejPGURlK17veJUcJ4gqLXHTyUp5x0a1ZMAiBioPurepmSMIIC\n"
          + "1iRwIieGtk20ghuA4FwisJWrmzWsDw==\n"
          + "-----END CERTIFICATE-----\n";

  @TempDir Path tmp;

  private Path pem(String name, String text) throws Exception {
    return Files.writeString(tmp.resolve(name), text, StandardCharsets.US_ASCII);
  }

  private static UpstreamEngine trusting(Path ca) {
    return Fixture.remoteBuilder(URI.create("https://127.0.0.1:9/v1"))
        .trustedCertificates(ca)
        .build();
  }

  /** Whether the client, its thread pool and its scheduler are stopped, no pool thread left. */
  private static boolean stoppedWithItsThreads(HttpClient client) {
    return client.isStopped()
        && ((QueuedThreadPool) client.getExecutor()).isStopped()
        && ((QueuedThreadPool) client.getExecutor()).getThreads() == 0
        && ((LifeCycle) client.getScheduler()).isStopped();
  }

  @Test
  void theLastEngineOfACaSetClosed_stopsItsClient_andItsThreads_notAnotherSets() throws Exception {
    Path a = pem("a.pem", CA_A);
    UpstreamEngine first = trusting(a);
    UpstreamEngine second = trusting(pem("a-again.pem", CA_A));
    UpstreamEngine other = trusting(pem("b.pem", CA_B));
    HttpClient client = first.client();
    assertThat(second.client()).as("the same certificates, one client").isSameAs(client);
    assertThat(other.client()).isNotSameAs(client);

    first.close();
    first.close();
    assertThat(client.isStarted()).as("held by the second engine, whatever the first did").isTrue();

    second.close();
    assertThat(stoppedWithItsThreads(client)).as("the last engine of the set closed").isTrue();
    assertThat(UpstreamHttp.trusting(TrustedCas.read(a))).as("no client kept for the set").isNull();
    assertThat(other.client().isStarted()).as("another set's client").isTrue();
    other.close();
    assertThat(stoppedWithItsThreads(other.client())).isTrue();
  }

  @Test
  void anEngineBuiltAfterTheRelease_getsANewClientThatWorks() throws Exception {
    Path a = pem("a.pem", CA_A);
    UpstreamEngine before = trusting(a);
    HttpClient released = before.client();
    before.close();
    UpstreamEngine after = trusting(a);
    try (RawUpstream plain =
        new RawUpstream(
            out ->
                out.write(
                    "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok"
                        .getBytes(StandardCharsets.US_ASCII)))) {
      assertThat(after.client()).isNotSameAs(released);
      ContentResponse r = after.client().newRequest(plain.base()).send();
      assertThat(r.getStatus()).isEqualTo(200);
      assertThat(r.getContentAsString()).isEqualTo("ok");
    } finally {
      after.close();
    }
    assertThat(stoppedWithItsThreads(after.client())).isTrue();
  }

  /**
   * Builds and closes on the same certificates from several threads at once: every engine gets a
   * client that is running (never one a racing close is stopping), and once all are closed every
   * client handed out is stopped and none is kept.
   */
  @Test
  void buildsRacingCloses_eachGetARunningClient_andNoneIsKeptAfterTheLast() throws Exception {
    Path a = pem("a.pem", CA_A);
    int threads = 4;
    int rounds = 8;
    List<HttpClient> handedOut = new CopyOnWriteArrayList<>();
    List<String> notRunning = new CopyOnWriteArrayList<>();
    CountDownLatch go = new CountDownLatch(1);
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<?>> done = new java.util.ArrayList<>();
      for (int t = 0; t < threads; t++) {
        done.add(
            pool.submit(
                () -> {
                  go.await();
                  for (int r = 0; r < rounds; r++) {
                    UpstreamEngine e = trusting(a);
                    HttpClient c = e.client();
                    handedOut.add(c);
                    if (!c.isStarted()) {
                      notRunning.add(c.getState());
                    }
                    e.close();
                  }
                  return null;
                }));
      }
      go.countDown();
      for (Future<?> f : done) {
        f.get(60, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(notRunning).as("clients handed out while being stopped").isEmpty();
    assertThat(UpstreamHttp.trusting(TrustedCas.read(a))).isNull();
    assertThat(handedOut).hasSize(threads * rounds).allMatch(c -> c.isStopped());
  }

  @Test
  void closing_closesItsIdleKeepAliveConnections_andAServeAfterIsRefusedUnsent() throws Exception {
    try (ScriptedUpstream upstream =
        new ScriptedUpstream(
            UpstreamWireTest.answering(
                200,
                ScriptedUpstream.reply(
                    "kept alive", "stop", "{\"prompt_tokens\":3,\"completion_tokens\":2}")))) {
      UpstreamEngine e = Fixture.remote(upstream.base());
      ScriptedUpstream.Asked asked = ScriptedUpstream.Asked.chat("Keep it.", 8);
      e.serve(asked.request(), asked.payload());
      assertThat(upstream.openConnections()).as("pooled for the next serve").isEqualTo(1);

      e.close();
      long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (upstream.openConnections() > 0 && System.nanoTime() < until) {
        Thread.sleep(10);
      }
      assertThat(upstream.openConnections()).as("closed by the engine's close").isZero();
      assertThatThrownBy(() -> e.serve(asked.request(), asked.payload()))
          .isInstanceOf(EngineException.class)
          .hasMessage("the upstream engine is closed");
      assertThat(upstream.forwarded).hasSize(1);
    }
  }
}
