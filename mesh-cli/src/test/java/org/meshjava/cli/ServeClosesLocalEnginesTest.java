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
    Path config = Files.writeString(tmp.resolve("mesh.json"), "{}");
    Path portFile = tmp.resolve("port");
    java.util.concurrent.CountDownLatch closed = new java.util.concurrent.CountDownLatch(1);
    List<String> steps = new CopyOnWriteArrayList<>();
    java.util.concurrent.atomic.AtomicReference<Run> run =
        new java.util.concurrent.atomic.AtomicReference<>();
    Thread serving =
        new Thread(
            () ->
                run.set(
                    ScopedValue.where(ServeCommand.LOADING_MINILM, () -> new ClosedStandIn(closed))
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
    while (!Files.exists(portFile) && serving.isAlive()) {
      assertThat(System.nanoTime()).as("mesh serve did not listen").isLessThan(deadline);
      Thread.sleep(10);
    }
    assertThat(portFile).as("listening: %s", run.get()).exists();
    serving.interrupt(); // an embedder's stop: nothing was ever in flight
    serving.join(10_000);
    assertThat(run.get()).isNotNull();
    assertThat(run.get().code()).as(run.get().err()).isZero();
    assertThat(closed.getCount()).as("the stand-in's closes, steps %s", steps).isZero();
  }

  /** A local engine (a reference engine) standing in for MiniLM, counting its close down. */
  private record ClosedStandIn(java.util.concurrent.CountDownLatch closed)
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
      return REF.serve(request, prompt);
    }

    @Override
    public void close() {
      closed.countDown();
    }
  }
}
