package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.cli.MeshCommandTest.Run;

/**
 * {@code mesh serve} closes the local engines it built (an ONNX session, a Jlama model) where its
 * start failed before the server started, since no serve ran in any, and where it stopped with no
 * request in flight; where a request was still in flight when the server closed, a serve the drain
 * cut may still run in one, and they are left to the process's end (the upstream engines are closed
 * either way, {@link ServeStopClosesUpstreamsTest}).
 */
class ServeClosesLocalEnginesTest {
  @TempDir Path tmp;

  /**
   * Regression: the cleanup closed only upstream engines, so the MiniLM decision engine a start
   * refused at its revocations file had built (its native session) stayed open for good in a JVM
   * that runs the command in process. Slow (the MiniLM engine built, a steward started): the
   * default suite's sample of the rule of which engines are closed is {@link
   * ServeConfigClosesBuiltEnginesTest}.
   */
  @Test
  @Tag("slow")
  void aStartRefusedBeforeItListens_closesTheLocalEngineItBuilt() throws Exception {
    Path revocations = Files.writeString(tmp.resolve("bad.hex"), "not hex\n");
    List<String> steps = new CopyOnWriteArrayList<>();
    Run r =
        ScopedValue.where(ServeCommand.CLEANING_UP, steps::add)
            .call(
                () ->
                    MeshCommandTest.mesh(
                        "serve",
                        "--journal",
                        tmp.resolve("steward.journal").toString(),
                        "--meter",
                        "estimator",
                        "--host",
                        "127.0.0.1",
                        "--port",
                        "0",
                        "--revocations",
                        revocations.toString()));

    assertThat(r.code()).as(r.err()).isEqualTo(1);
    assertThat(r.err()).contains(revocations + " line 1: not a revocation");
    assertThat(steps)
        .as("the cleanup's steps: the embedded MiniLM decision engine closed once")
        .containsOnlyOnce("engine");
  }

  /**
   * Regression: once the server had started, the local engines were left open at its stop even
   * where nothing was in flight, so in a JVM that runs the command in process (an embedder's, a
   * test's) each start and stop left its MiniLM session's native memory behind. The decision engine
   * here is a stand-in ({@link ServeCommand#LOADING_MINILM}) that records its close.
   */
  @Test
  void aStopWithNothingInFlight_closesTheLocalEngines() throws Exception {
    java.util.concurrent.CountDownLatch closed = new java.util.concurrent.CountDownLatch(1);
    List<String> steps = new CopyOnWriteArrayList<>();
    java.util.concurrent.atomic.AtomicReference<Run> run =
        new java.util.concurrent.atomic.AtomicReference<>();
    Thread serving =
        listening(
            "{}",
            new ClosedStandIn(closed, new java.util.concurrent.CountDownLatch(0)),
            steps,
            run);
    serving.interrupt(); // an embedder's stop: nothing was ever in flight
    serving.join(10_000);
    assertThat(run.get()).isNotNull();
    assertThat(run.get().code()).as(run.get().err()).isZero();
    assertThat(closed.getCount()).as("the stand-in's closes, steps %s", steps).isZero();
  }

  /**
   * Regression: a serve refused at {@code engine_deadline_s} is answered, so the server counts
   * nothing in flight, while its engine call still runs on a thread of its own; the stop took that
   * for a stop with nothing in flight and closed the local engines under it (an ONNX session's
   * native memory freed while the call still runs in it). Slow: the deadline is at least a second.
   */
  @Test
  @Tag("slow")
  void aStopWithAnEngineCallPastItsDeadline_leavesTheLocalEnginesOpen() throws Exception {
    java.util.concurrent.CountDownLatch closed = new java.util.concurrent.CountDownLatch(1);
    java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
    List<String> steps = new CopyOnWriteArrayList<>();
    java.util.concurrent.atomic.AtomicReference<Run> run =
        new java.util.concurrent.atomic.AtomicReference<>();
    try {
      Thread serving =
          listening("{\"engine_deadline_s\": 1}", new ClosedStandIn(closed, release), steps, run);
      int port = Integer.parseInt(Files.readString(tmp.resolve("port")).strip());
      java.net.http.HttpResponse<String> answer =
          java.net.http.HttpClient.newHttpClient()
              .send(
                  java.net.http.HttpRequest.newBuilder(
                          java.net.URI.create("http://127.0.0.1:" + port + "/v1/chat/completions"))
                      .timeout(java.time.Duration.ofSeconds(60))
                      .header("Content-Type", "application/json")
                      .POST(
                          java.net.http.HttpRequest.BodyPublishers.ofString(
                              "{\"model\": \"stand-in\", \"max_tokens\": 4,"
                                  + " \"messages\": [{\"role\": \"user\", \"content\":"
                                  + " \"hi\"}]}"))
                      .build(),
                  java.net.http.HttpResponse.BodyHandlers.ofString());
      assertThat(answer.body()).contains("engine_failed");
      serving.interrupt(); // nothing in flight at the server: the request was answered
      serving.join(10_000);
      assertThat(run.get()).isNotNull();
      assertThat(run.get().code()).as(run.get().err()).isZero();
      assertThat(closed.getCount())
          .as("the stand-in was closed while its engine call still ran; steps %s", steps)
          .isEqualTo(1);
    } finally {
      release.countDown();
    }
  }

  /**
   * Starts {@code mesh serve} on {@code json} in a thread of its own, with {@code standIn} loaded
   * for MiniLM, and returns once it listens (its port in {@code tmp/port}).
   */
  private Thread listening(
      String json,
      ClosedStandIn standIn,
      List<String> steps,
      java.util.concurrent.atomic.AtomicReference<Run> run)
      throws Exception {
    Path config = Files.writeString(tmp.resolve("mesh.json"), json);
    Path portFile = tmp.resolve("port");
    Thread serving =
        new Thread(
            () ->
                run.set(
                    ScopedValue.where(ServeCommand.LOADING_MINILM, () -> standIn)
                        .where(ServeCommand.CLEANING_UP, steps::add)
                        .call(
                            () ->
                                MeshCommandTest.mesh(
                                    "serve",
                                    "--config",
                                    config.toString(),
                                    "--meter",
                                    "estimator",
                                    "--host",
                                    "127.0.0.1",
                                    "--port",
                                    "0",
                                    "--port-file",
                                    portFile.toString()))));
    serving.start();
    long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(30);
    while ((!Files.exists(portFile) || Files.readString(portFile).isBlank()) && serving.isAlive()) {
      assertThat(System.nanoTime()).as("mesh serve did not listen").isLessThan(deadline);
      Thread.sleep(10);
    }
    assertThat(portFile).as("listening: %s", run.get()).exists();
    return serving;
  }

  /**
   * A local engine (a reference engine) standing in for MiniLM, counting its close down; each serve
   * first waits for {@code release}, ignoring interrupts as a native call does.
   */
  private record ClosedStandIn(
      java.util.concurrent.CountDownLatch closed, java.util.concurrent.CountDownLatch release)
      implements org.meshjava.core.ServingEngine, AutoCloseable {
    private static final org.meshjava.core.ServingEngine REF = ReferenceSteward.engine();

    @Override
    public String name() {
      return "stand-in";
    }

    @Override
    public org.meshjava.core.Recipe recipe() {
      return REF.recipe();
    }

    @Override
    public org.meshjava.core.Fidelity fidelity() {
      return REF.fidelity();
    }

    @Override
    public org.meshjava.core.CostProfile costProfile() {
      return REF.costProfile();
    }

    @Override
    public org.meshjava.core.EngineResult serve(
        org.meshjava.core.ServeRequest request, org.meshjava.core.TokenSequence prompt)
        throws org.meshjava.core.EngineException {
      boolean interrupted = false;
      while (true) {
        try {
          release.await();
          break;
        } catch (InterruptedException e) {
          interrupted = true;
        }
      }
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
      return REF.serve(request, prompt);
    }

    @Override
    public void close() {
      closed.countDown();
    }
  }
}
