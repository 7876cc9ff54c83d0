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
 * start failed before the server started, since no serve ran in any; once it started, a serve the
 * drain cut may still run in one, and they are left to the process's end (the upstream engines are
 * closed either way, {@link ServeStopClosesUpstreamsTest}).
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
}
