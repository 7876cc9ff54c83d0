package org.meshjava.steward;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.io.IOException;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.meshjava.core.EngineResult;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.TokenSequence;
import org.meshjava.jcp.GrantChain;
import org.meshjava.journal.JournalEntry;

/**
 * The JVM failing inside an engine's work (its heap gone, an InternalError) follows the one rule
 * for everything the steward asks an engine ({@link JvmFailure}): the serve is settled at what was
 * metered, its window let go and its debit journalled, and then the error passes as it is, never
 * refused {@code ENGINE_FAILED} as if the backend had failed (HTTP 502 for the process running out
 * of memory). Any other Error of the engine's code, a stack overflow included, is still the backend
 * failing; so is the JVM's fault for a read of a file the engine mapped (its weights) that was cut
 * short on disk, an InternalError too, but the engine's input failing, not the JVM.
 */
class EngineWorkJvmFailureTest {
  private static final long BUDGET = 1_000_000;
  private static final long CEILING = 50_000;

  private final GrantFixture f = new GrantFixture();
  @TempDir Path dir;

  private Supplier<Error> error(String kind) throws IOException {
    return switch (kind) {
      case "OutOfMemoryError" -> () -> new OutOfMemoryError("simulated");
      case "InternalError" -> () -> new InternalError("simulated");
      case "StackOverflowError" -> () -> new StackOverflowError("simulated");
      case "MappedReadFault" -> {
        MappedByteBuffer weights = mappedThenCutShort(dir.resolve("weights.bin"));
        yield () -> {
          weights.get(8191); // past the file's end now: the JVM's fault, as a real engine meets it
          throw new AssertionError("the read past the end did not fault");
        };
      }
      default -> () -> new AssertionError("simulated");
    };
  }

  /**
   * Regression: an OutOfMemoryError from the work was refused ENGINE_FAILED; the fault of a read of
   * the engine's mapped file cut short passed out of the serve raw, as the JVM failing ("a fault
   * occurred in an unsafe memory access operation"), which the HTTP front answered as a bug.
   */
  @ParameterizedTest
  @ValueSource(
      strings = {
        "OutOfMemoryError",
        "InternalError",
        "StackOverflowError",
        "Assertion",
        "MappedReadFault"
      })
  void theJvmFailingInTheWork_passesSettled_anyOtherErrorIsEngineFailed(String kind)
      throws Exception {
    Supplier<Error> thrown = error(kind);
    List<String> events = new ArrayList<>();
    DurableMemoryJournal journal = new DurableMemoryJournal();
    GrantChain chain = f.chain(BUDGET);
    StewardGrantTest.Delegating engine =
        new StewardGrantTest.Delegating(GrantFixture.ref()) {
          @Override
          public EngineResult serve(ServeRequest r, TokenSequence p) {
            throw thrown.get();
          }
        };
    try (Steward s = f.bare(journal).meter(new RecordingMeter(events)).backend(engine).build()) {
      ServeRequest req = GrantFixture.request("the heap goes", 3, CEILING);

      Throwable t =
          catchThrowable(() -> s.serve(req, GrantFixture.payload(req), f.present(chain, req)));

      if (kind.equals("OutOfMemoryError") || kind.equals("InternalError")) {
        assertThat(t).isInstanceOf(thrown.get().getClass()).hasMessage("simulated");
      } else {
        assertThat(t)
            .isInstanceOfSatisfying(
                ServeException.class,
                e -> assertThat(e.reason()).isEqualTo(ServeException.Reason.ENGINE_FAILED));
      }
      if (kind.equals("MappedReadFault")) {
        assertThat(t.getMessage())
            .contains("was cut short on disk while it ran")
            .contains("needs the whole file back");
        assertThat(t.getCause()).isInstanceOf(InternalError.class);
      }
      assertSettledAsMetered(s, chain, journal, events, BUDGET, CEILING);
    }
  }

  /**
   * Asserts a granted serve whose engine failed was settled at what was metered: its window opened
   * and closed once, a figure above nothing and below the ceiling debited and journalled last,
   * nothing left unresolved and nothing sealed.
   */
  static void assertSettledAsMetered(
      Steward s,
      GrantChain chain,
      DurableMemoryJournal journal,
      List<String> events,
      long budget,
      long ceiling) {
    assertThat(events).containsExactly("open", "close");
    long debited = budget - s.spend().remainingUj(chain);
    assertThat(debited).isGreaterThan(0).isLessThan(ceiling);
    assertThat(journal.records().getLast().entry())
        .isInstanceOfSatisfying(
            JournalEntry.Debited.class, d -> assertThat(d.debitedUj()).isEqualTo(debited));
    assertThat(s.unresolved()).isEmpty();
    assertThat(s.head().nextSequence()).isZero();
  }

  /**
   * A buffer over two pages of {@code file}, which is then cut to nothing: its last byte faults.
   */
  private static MappedByteBuffer mappedThenCutShort(Path file) throws IOException {
    Files.write(file, new byte[8192]);
    try (FileChannel ch =
        FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      MappedByteBuffer buffer = ch.map(FileChannel.MapMode.READ_ONLY, 0, 8192);
      ch.truncate(0);
      return buffer;
    }
  }
}
