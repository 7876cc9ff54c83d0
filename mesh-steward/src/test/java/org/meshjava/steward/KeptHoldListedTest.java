package org.meshjava.steward;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.core.ServeRequest;
import org.meshjava.jcp.GrantChain;
import org.meshjava.journal.FileJournal;
import org.meshjava.journal.JournalEntry;

/**
 * A grant's hold kept after the journal threw unchecked on its {@code Authorised} record (the
 * record may have been queued, so the ceiling stays held, {@code ThrowAfterQueueingTest}) is listed
 * by {@link Steward#unresolved()} at once, its record's number unknown, so an operator sees why the
 * grant is short; a restart lists it by number if the record reached the journal.
 */
class KeptHoldListedTest {
  private static final long CEILING = 50_000;

  private final GrantFixture f = new GrantFixture();
  @TempDir Path dir;

  /**
   * Regression: unresolved() was empty until a restart, the grant one ceiling short unexplained.
   */
  @Test
  void aHoldKeptAfterAnUncheckedThrow_isListedUnresolved_thenByNumberAfterARestart()
      throws Exception {
    Path file = dir.resolve("j");
    GrantChain chain = f.chain(1_000_000);
    ServeRequest first = GrantFixture.request("kept", 3, CEILING);
    try (Steward s =
        f.steward(
                FailsOnceUnchecked.afterQueueing(
                    FileJournal.open(file), JournalEntry.Authorised.class))
            .build()) {
      assertThatThrownBy(() -> s.serve(first, GrantFixture.payload(first), f.present(chain, first)))
          .isInstanceOf(IllegalStateException.class);

      assertThat(s.unresolved())
          .singleElement()
          .satisfies(
              u -> {
                assertThat(u.authorisedSeq()).as("the record's number, not known").isEqualTo(-1);
                assertThat(u.requestId()).isEqualTo(first.id());
                assertThat(u.ceilingUj()).isEqualTo(CEILING);
                assertThat(u.backend()).isEqualTo("ref");
                assertThat(u.toString()).contains("not known until a restart");
              });
    }
    try (Steward s = f.steward(FileJournal.open(file)).build()) {
      assertThat(s.unresolved())
          .singleElement()
          .satisfies(
              u -> {
                assertThat(u.authorisedSeq()).isNotEqualTo(-1);
                assertThat(u.requestId()).isEqualTo(first.id());
              });
    }
  }
}
