package org.meshjava.steward;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.core.EngineResult;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.TokenSequence;
import org.meshjava.jcp.GrantChain;
import org.meshjava.journal.JournalEntry;

/**
 * An engine that maps its own files (its weights) and reads one that was cut short on disk meets
 * the JVM's fault for that read, an {@link InternalError}. That is the engine's input failing, not
 * the JVM: the serve is refused {@code ENGINE_FAILED} in words that say what happened, settled at
 * what was metered with its window let go and its debit journalled, as any other failure of the
 * engine's work is (SPEC.md §2.2).
 */
class EngineMappedReadFaultTest {
  private static final long BUDGET = 1_000_000;
  private static final long CEILING = 50_000;

  private final GrantFixture f = new GrantFixture();
  @TempDir Path dir;

  /**
   * Regression: the fault passed out of the serve raw, as the JVM failing ("a fault occurred in an
   * unsafe memory access operation"), which the HTTP front answered as a bug.
   */
  @Test
  void aReadOfTheEnginesMappedFileCutShort_isRefusedEngineFailed_andSettled() throws Exception {
    MappedByteBuffer weights = mappedThenCutShort(dir.resolve("weights.bin"));
    List<String> events = new ArrayList<>();
    DurableMemoryJournal journal = new DurableMemoryJournal();
    GrantChain chain = f.chain(BUDGET);
    StewardGrantTest.Delegating engine =
        new StewardGrantTest.Delegating(GrantFixture.ref()) {
          @Override
          public EngineResult serve(ServeRequest r, TokenSequence p) {
            weights.get(
                8191); // past the file's end now: the JVM's fault, as a real engine meets it
            throw new AssertionError("the read past the end did not fault");
          }
        };
    try (Steward s = f.bare(journal).meter(new RecordingMeter(events)).backend(engine).build()) {
      ServeRequest req = GrantFixture.request("the weights were cut", 3, CEILING);

      Throwable t =
          catchThrowable(() -> s.serve(req, GrantFixture.payload(req), f.present(chain, req)));

      assertThat(t)
          .isInstanceOfSatisfying(
              ServeException.class,
              e -> {
                assertThat(e.reason()).isEqualTo(ServeException.Reason.ENGINE_FAILED);
                assertThat(e.getMessage())
                    .contains("was cut short on disk while it ran")
                    .contains("needs the whole file back");
                assertThat(e.getCause()).isInstanceOf(InternalError.class);
              });
      assertThat(events).containsExactly("open", "close");
      long debited = BUDGET - s.spend().remainingUj(chain);
      assertThat(debited).isGreaterThan(0).isLessThan(CEILING);
      assertThat(journal.records().getLast().entry())
          .isInstanceOfSatisfying(
              JournalEntry.Debited.class, d -> assertThat(d.debitedUj()).isEqualTo(debited));
      assertThat(s.unresolved()).isEmpty();
      assertThat(s.head().nextSequence()).isZero();
    }
  }

  /**
   * A buffer over two pages of {@code file}, which is then cut to nothing: its last byte faults.
   */
  private static MappedByteBuffer mappedThenCutShort(Path file) throws Exception {
    Files.write(file, new byte[8192]);
    try (FileChannel ch =
        FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      MappedByteBuffer buffer = ch.map(FileChannel.MapMode.READ_ONLY, 0, 8192);
      ch.truncate(0);
      return buffer;
    }
  }
}
