package org.meshjava.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.journal.Snapshot;
import org.meshjava.journal.SnapshotStore;
import org.meshjava.steward.Steward;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * An {@link Error} while the steward is built over the journal {@code mesh.journal} opened (out of
 * memory while its snapshot or its records are read back) fails the start and lets the journal go:
 * the starter is handed no steward to close, so the builder closes the journal itself, and the next
 * start in the same process opens it.
 */
class StartErrorReleasesJournalTest {
  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(AutoConfigurations.of(MeshAutoConfiguration.class))
          .withPropertyValues("mesh.meter=estimator", "mesh.backends[0].name=small");

  @TempDir Path dir;

  /** A snapshot store whose read runs the JVM out of memory. */
  private static final class OutOfMemoryStore implements SnapshotStore {
    @Override
    public void save(Snapshot snapshot) {}

    @Override
    public Optional<byte[]> latest() {
      throw new OutOfMemoryError("Java heap space");
    }

    @Override
    public Optional<java.nio.ByteBuffer> latestBuffer() {
      return Optional.ofNullable(latest().map(java.nio.ByteBuffer::wrap).orElse(null));
    }

    @Override
    public String describe() {
      return "a store out of memory";
    }
  }

  /**
   * Regression: the builder released its claim on the journal but left it open, so its lock stayed
   * held and the next start in the process was refused the journal.
   */
  @Test
  void anErrorWhileTheStewardIsBuilt_releasesTheJournal_forTheNextStart() throws Exception {
    Path journal = dir.resolve("steward.journal");
    Files.createFile(journal);
    runner
        .withPropertyValues("mesh.journal=" + journal)
        .withBean(StewardBuilderCustomizer.class, () -> b -> b.snapshots(new OutOfMemoryStore()))
        .run(
            context -> assertThat(context).getFailure().hasStackTraceContaining("Java heap space"));
    runner
        .withPropertyValues("mesh.journal=" + journal)
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              assertThat(context.getBean(Steward.class).readiness().ready()).isTrue();
            });
  }
}
