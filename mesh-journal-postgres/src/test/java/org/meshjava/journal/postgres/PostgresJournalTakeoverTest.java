package org.meshjava.journal.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.meshjava.journal.JournalException;

/**
 * Another steward's writes reaching the database under a journal still open (SPEC.md 60.7): a
 * record already at the place this writer's goes, or an epoch raised before an import's first
 * batch. Each fails the writer {@code FENCED}, naming what happened, and adds nothing of its own.
 */
class PostgresJournalTakeoverTest {
  @BeforeAll
  static void startServer() {
    PostgresJournalTest.startServer();
  }

  @Test
  void aRecordAnotherStewardWroteAtTheNextSeq_failsTheWriterFenced_namingTheRecord()
      throws Exception {
    String name = PostgresJournalTest.newName();
    try (PostgresJournal j = PostgresJournal.open(PostgresJournalTest.location(), name)) {
      j.append(PostgresJournalTest.authorised(0));
      long next = j.position().count();
      PostgresJournalTest.sql(
          "INSERT INTO mesh_journal_record (journal, seq, line) VALUES ('"
              + name
              + "', "
              + next
              + ", 'theirs'::bytea)");
      assertThatThrownBy(() -> j.append(PostgresJournalTest.authorised(1)))
          .isInstanceOfSatisfying(
              JournalException.class,
              e -> {
                assertThat(e.reason()).isEqualTo(JournalException.Reason.FENCED);
                assertThat(e.getMessage())
                    .contains("another steward wrote record " + next + " of journal " + name)
                    .as("refused before its commit was sent: nothing of it can turn up later")
                    .doesNotContain("may still be found on restart");
              });
      assertThat(j.refusesAppends()).isPresent();
      assertThat(j.locked()).as("a fenced journal lets its lock go").isFalse();
    }
    assertThat(PostgresJournalTest.rows(name)).hasSize(3);
  }

  @Test
  void anImportTakenOverBeforeItsFirstBatch_isRefusedFenced_andWritesNothing() throws Exception {
    String name = PostgresJournalTest.newName();
    List<byte[]> lines = PostgresJournalTest.receiptLines(5);
    assertThatThrownBy(
            () ->
                PostgresJournal.importLines(
                    PostgresJournalTest.location(),
                    name,
                    sink -> {
                      // A successor raises the epoch while the import waits for its source.
                      try {
                        PostgresJournalTest.sql(
                            "UPDATE mesh_journal_owner SET epoch = epoch + 1 WHERE journal = '"
                                + name
                                + "'");
                      } catch (Exception e) {
                        throw new IllegalStateException(e);
                      }
                      for (byte[] line : lines) {
                        sink.accept(line);
                      }
                    }))
        .isInstanceOfSatisfying(
            JournalException.class,
            e -> {
              assertThat(e.reason()).isEqualTo(JournalException.Reason.FENCED);
              assertThat(e.getMessage()).contains("taken over by another steward");
            });
    assertThat(PostgresJournalTest.rows(name)).isEmpty();
  }

  @Test
  void aFencedJournal_letsItsSuccessorOpenAtOnce_beforeItIsClosed() throws Exception {
    String name = PostgresJournalTest.newName();
    try (PostgresJournal fenced = PostgresJournal.open(PostgresJournalTest.location(), name)) {
      fenced.append(PostgresJournalTest.authorised(0));
      PostgresJournalTest.sql(
          "UPDATE mesh_journal_owner SET epoch = epoch + 1 WHERE journal = '" + name + "'");
      assertThatThrownBy(() -> fenced.append(PostgresJournalTest.authorised(1)))
          .isInstanceOf(JournalException.class);
      // Still open, but it has given its session, and with it the lock, back.
      try (PostgresJournal successor = PostgresJournal.open(PostgresJournalTest.location(), name)) {
        assertThat(successor.epoch()).isEqualTo(3);
        assertThat(successor.position().count()).isEqualTo(2);
      }
    }
  }
}
