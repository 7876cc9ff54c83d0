package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.cli.MeshCommandTest.Run;
import org.meshjava.core.ServingEngine;
import org.meshjava.engine.onnx.OnnxEngineException;
import org.meshjava.journal.FileJournal;

/**
 * {@code mesh serve} meets every refusal that needs no model (its configuration, its journal's
 * lock, its snapshot folder's claim, its port) before it loads the MiniLM decision engine, which
 * takes seconds and holds a native session meanwhile; and a load that fails after the port is bound
 * lets the port, the journal and the snapshot folder go. The loads are counted through {@link
 * ServeCommand#LOADING_MINILM}, which stands in for the model: no test here reads it.
 */
class ServeStartOrderTest {
  @TempDir Path tmp;

  /**
   * A stand-in for MiniLM's load that counts in {@code loads} and fails as a missing model does, so
   * that a start that gets as far as loading it ends there.
   */
  static ServeCommand.OnnxLoad<ServingEngine> countedLoad(AtomicInteger loads) {
    return () -> {
      loads.incrementAndGet();
      throw new OnnxEngineException(
          OnnxEngineException.Reason.MODEL_UNREADABLE, "model.onnx: no such file (a stand-in)");
    };
  }

  /** A configuration that keeps the embedded defaults, MiniLM among them. */
  private Path embeddedDefaults() throws java.io.IOException {
    return Files.writeString(tmp.resolve("defaults.json"), "{}");
  }

  /**
   * Regression: a start refused for its journal (another steward holds it) first loaded MiniLM, as
   * every start did before opening its journal; now it is refused without loading it.
   */
  @Test
  void aStartRefusedForAHeldJournal_loadsNoMiniLm() throws Exception {
    Path journal = tmp.resolve("held.journal");
    AtomicInteger loads = new AtomicInteger();
    try (FileJournal held = FileJournal.open(journal)) {
      Run r =
          ScopedValue.where(ServeCommand.LOADING_MINILM, countedLoad(loads))
              .call(
                  () ->
                      CliErrorsTest.serveOnAFreePort(
                          journal, "--config", embeddedDefaults().toString()));
      assertThat(r.code()).as(r.err()).isEqualTo(1);
      assertThat(r.err()).contains("is held by another steward");
    }
    assertThat(loads).as("MiniLM loads").hasValue(0);
  }

  /**
   * A load that fails after the port is bound says why in one line, and lets go of everything the
   * start took: the port (bound again here), the new journal and the snapshot folder made beside it
   * (both removed), the journal's lock and the folder's claim (the same start, run again in this
   * JVM, meets the same failure rather than a held journal or a port in use).
   */
  @Test
  void aFailedLoadAfterTheBind_releasesThePortTheJournalAndTheSnapshotClaim() throws Exception {
    Path state = Files.createDirectory(tmp.resolve("state"));
    Path journal = state.resolve("steward.journal");
    Path config = embeddedDefaults();
    // A port free now, picked by the system rather than fixed, so that no other process (another
    // build's test, a service) can hold it already; the start binds it, and so does this test
    // after.
    int port;
    try (ServerSocket free = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = free.getLocalPort();
    }
    for (int attempt = 1; attempt <= 2; attempt++) {
      AtomicInteger loads = new AtomicInteger();
      List<String> steps = new CopyOnWriteArrayList<>();
      Run r =
          ScopedValue.where(ServeCommand.LOADING_MINILM, countedLoad(loads))
              .where(ServeCommand.CLEANING_UP, steps::add)
              .call(() -> CliErrorsTest.serveOn(port, journal, "--config", config.toString()));
      assertThat(r.code()).as(r.err()).isEqualTo(1);
      assertThat(loads).as("attempt %d: MiniLM loads", attempt).hasValue(1);
      assertThat(r.err().lines().filter(l -> l.startsWith("mesh serve:")).toList())
          .as("attempt %d", attempt)
          .containsExactly(
              "mesh serve: cannot load the MiniLM decision engine: MODEL_UNREADABLE: model.onnx:"
                  + " no such file (a stand-in)");
      assertThat(steps)
          .as("attempt %d: the cleanup's steps", attempt)
          .contains("listener", "journal", "created journal", "snapshot folder claim");
      try (ServerSocket again = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
        assertThat(again.getLocalPort()).isEqualTo(port);
      }
      try (var left = Files.list(state)) {
        assertThat(left.toList()).as("attempt %d: left in the journal's folder", attempt).isEmpty();
      }
    }
  }
}
