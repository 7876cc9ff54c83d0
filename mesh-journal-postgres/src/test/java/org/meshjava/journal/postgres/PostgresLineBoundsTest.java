package org.meshjava.journal.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.meshjava.journal.JournalEntry;
import org.meshjava.journal.JournalException;
import org.meshjava.journal.internal.RecordCodec;
import org.meshjava.receipt.Envelope;
import org.meshjava.testpg.PostgresTestServer;

/**
 * What a read of the records holds at once (SPEC.md 60.7, "Faults"): the rows were fetched a
 * thousand at a time whatever their size, so a DBA's huge rows, or an honest journal of large
 * records, could exhaust the heap at opening. Sizes are now asked first: a row longer than a record
 * may be is refused by its seq before it is fetched, and lines come in pages bounded in bytes. The
 * bounds are passed small here, and the driver's {@code maxResultBuffer} stands for the heap: it
 * fails a fetch that brings more than it allows.
 */
class PostgresLineBoundsTest {
  /** Lines of at most 64 KiB, pages of at most 256 KiB. */
  private static final JournalSchema.ReadBounds BOUNDS =
      new JournalSchema.ReadBounds(64 << 10, 256 << 10);

  /** The most one fetch may bring: four pages' worth, a sixth of the rows planted below. */
  private static final int HEAP = 1 << 20;

  private static PostgresTestServer server;
  private static String database;

  @BeforeAll
  static void startServer() throws SQLException {
    server = PostgresTestServer.shared();
    database = server.newDatabase();
    try (Connection c = server.connect(database)) {
      JournalSchema.create(c, PostgresJournalTest.PUBLIC);
    }
  }

  @Test
  void manyRowsNearTheLimit_areReadInPagesBoundedInBytes() throws Exception {
    String journal = PostgresJournalTest.newName();
    plant(journal, 0, 100, 60_000);
    List<Integer> lengths = new ArrayList<>();
    read(
        journal,
        (seq, line) -> {
          assertThat(seq).isEqualTo(lengths.size());
          lengths.add(line.length);
        });
    assertThat(lengths).hasSize(100).containsOnly(60_000);
  }

  @Test
  void aRowLongerThanARecordMayBe_isRefusedBySeq_beforeItIsFetched() throws Exception {
    String journal = PostgresJournalTest.newName();
    plant(journal, 0, 2, 100);
    plant(journal, 2, 1, 3 * HEAP);
    plant(journal, 3, 1, 100);
    List<Long> taken = new ArrayList<>();
    JournalException e =
        catchThrowableOfType(
            JournalException.class, () -> read(journal, (seq, line) -> taken.add(seq)));
    assertThat(e).isNotNull();
    assertThat(e.reason()).isEqualTo(JournalException.Reason.CORRUPT);
    assertThat(e.seq()).hasValue(2);
    assertThat(e.getMessage())
        .contains("a row of " + 3 * HEAP + " bytes")
        .contains("longer than the " + (64 << 10) + " bytes a record may be");
    assertThat(taken).as("refused from the sizes, before the page's lines came").isEmpty();
  }

  /**
   * The write's twin of the refusal above: an append stored a record that does not read back (a
   * suspension carrying a witness's 10 MB envelope, a string longer than the decoder reads), and
   * every opening after refused the journal. It is refused typed at append, and the journal goes
   * on.
   */
  @Test
  void aRecordLongerThanARecordMayBe_isRefusedAtAppend_andTheJournalStillOpens() throws Exception {
    PostgresJournalTest.startServer();
    PostgresLocation where = PostgresJournalTest.location();
    String name = PostgresJournalTest.newName();
    try (PostgresJournal j = PostgresJournal.open(where, name)) {
      j.append(new JournalEntry.Resumed("before"));
      JournalException e =
          catchThrowableOfType(
              JournalException.class,
              () ->
                  j.append(
                      new JournalEntry.Suspended(
                          0, Envelope.of(new byte[RecordCodec.MAX_STRING / 2 + 1]))));
      assertThat(e).isNotNull();
      assertThat(e.reason()).isEqualTo(JournalException.Reason.CORRUPT);
      assertThat(e.getMessage()).contains("a Suspended record would be a line of");
      assertThat(j.append(new JournalEntry.Resumed("after")).seq()).isEqualTo(1);
    }
    try (PostgresJournal j = PostgresJournal.open(where, name)) {
      assertThat(j.recovered()).hasSize(2);
    }
  }

  /**
   * Reads every line of {@code journal} within {@link #BOUNDS}, on a session whose fetches may
   * bring at most {@link #HEAP} bytes.
   */
  private static void read(String journal, JournalSchema.LineSink sink) throws Exception {
    try (Connection c =
        DriverManager.getConnection(server.jdbcUrl(database) + "&maxResultBuffer=" + HEAP)) {
      JournalSchema.readLines(
          c, PostgresJournalTest.PUBLIC, journal, 0, Long.MAX_VALUE, Duration.ZERO, BOUNDS, sink);
    }
  }

  /**
   * Stores {@code count} rows of {@code length} bytes from seq {@code from}, made by the server.
   */
  private static void plant(String journal, long from, int count, int length) throws SQLException {
    try (Connection c = server.connect(database);
        PreparedStatement ps =
            c.prepareStatement(
                "INSERT INTO mesh_journal_record (journal, seq, line)"
                    + " SELECT ?, s, pg_catalog.convert_to(pg_catalog.repeat('a', ?), 'UTF8')"
                    + " FROM pg_catalog.generate_series(?::bigint, ?::bigint) s")) {
      ps.setString(1, journal);
      ps.setInt(2, length);
      ps.setLong(3, from);
      ps.setLong(4, from + count - 1);
      ps.executeUpdate();
    }
  }
}
