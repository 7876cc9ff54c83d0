package org.meshjava.steward;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.core.ForwardingEngine;
import org.meshjava.journal.FileJournal;
import org.meshjava.journal.FileSnapshotStore;

/**
 * An {@link Error} while the steward itself is made, once its journal is replayed and its
 * snapshotter started (an engine's declared bound read as an AssertionError): the build fails with
 * it, and lets go of everything it started, as it does for an unchecked exception there. The
 * snapshotter's thread is stopped; before, it ran on for the life of the process, one thread more
 * for each failed build.
 */
class StartErrorLetsGoTest {
  private final GrantFixture f = new GrantFixture();
  @TempDir Path dir;

  /** The reference engine whose declared bound cannot be read. */
  private static final class BoundBroken extends ForwardingEngine {
    BoundBroken() {
      super(GrantFixture.ref());
    }

    @Override
    public int maxConcurrentServes() {
      throw new AssertionError("bound unreadable");
    }
  }

  private static List<Thread> snapshotters() {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(t -> t.getName().equals("mesh-snapshotter"))
        .toList();
  }

  @Test
  void anErrorFromTheStewardsMaking_stopsTheSnapshotterItStarted() throws Exception {
    List<Thread> before = snapshotters();
    Steward.Builder b =
        f.bare(FileJournal.open(dir.resolve("s.journal")))
            .backend(new BoundBroken())
            .snapshots(new FileSnapshotStore(dir.resolve("s.snapshots")))
            .snapshotEvery(0)
            .snapshotInterval(Duration.ofHours(1)); // a scheduled snapshot starts its thread

    assertThatThrownBy(b::build).isInstanceOf(AssertionError.class).hasMessage("bound unreadable");

    for (Thread t : snapshotters()) {
      if (!before.contains(t)) {
        t.join(10_000); // a stopped executor's thread ends once it sees the shutdown
        assertThat(t.isAlive()).as("the failed build's snapshotter thread").isFalse();
      }
    }
    // And the journal is let go: a steward over it starts.
    try (Steward s = f.steward(FileJournal.open(dir.resolve("s.journal"))).build()) {
      assertThat(s.unresolved()).isEmpty();
    }
  }
}
