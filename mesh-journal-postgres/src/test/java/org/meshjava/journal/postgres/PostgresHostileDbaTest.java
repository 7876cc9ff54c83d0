package org.meshjava.journal.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.sql.Connection;
import java.sql.Statement;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.meshjava.journal.JournalException;
import org.meshjava.testpg.PostgresTestServer;

/**
 * A database administrator changing what the journal's tables do under a running steward (SPEC.md
 * 60.7, "Faults"): each change ends the journal with a refusal that names what happened, no record
 * is acknowledged that is not stored, and nothing is written after it. Each test has a database of
 * its own, since what it does to the tables would reach every journal sharing them.
 */
class PostgresHostileDbaTest {
  static PostgresTestServer server;

  @BeforeAll
  static void startServer() {
    server = PostgresTestServer.shared();
  }

  /** A new database, and a journal in it holding two records (a grant chain and a decision). */
  record Opened(String database, String name, PostgresJournal journal) {
    static Opened open() throws Exception {
      return open(PostgresTestServer.USER);
    }

    /**
     * As {@link #open()}, by role {@code user} (made here unless the superuser), whose tables they
     * then are, with a lease of 3 s, so that a heartbeat comes every second.
     */
    static Opened open(String user) throws Exception {
      String database = server.newDatabase();
      if (!user.equals(PostgresTestServer.USER)) {
        try (Connection c = server.connect(database);
            Statement s = c.createStatement()) {
          s.execute("CREATE ROLE " + user + " LOGIN");
          s.execute("GRANT CREATE ON SCHEMA public TO " + user);
        }
      }
      String name = PostgresJournalTest.newName();
      PostgresJournal j =
          PostgresJournal.open(
              PostgresLocation.parse(
                  "postgresql://"
                      + user
                      + "@127.0.0.1:"
                      + server.port()
                      + "/"
                      + database
                      // A heartbeat a second; the default for the superuser's.
                      + (user.equals(PostgresTestServer.USER) ? "" : "?lease_ms=3000")),
              name);
      j.append(PostgresJournalTest.authorised(0));
      return new Opened(database, name, j);
    }

    /** Waits (up to a minute) for the heartbeat to fail the journal, and returns why. */
    String heartbeatFailure() throws InterruptedException {
      for (int i = 0; i < 600 && journal.refusesAppends().isEmpty(); i++) {
        Thread.sleep(100);
      }
      assertThat(journal.refusesAppends()).isPresent();
      return journal.refusesAppends().get();
    }

    void sql(String... statements) throws Exception {
      try (Connection c = server.connect(database);
          Statement s = c.createStatement()) {
        for (String statement : statements) {
          s.execute(statement);
        }
      }
    }

    /** The journal's records as its own reader finds them in the database. */
    long rows() throws Exception {
      return PostgresJournal.readLines(PostgresLocation.parse(server.url(database)), name).size();
    }

    /**
     * Runs the DBA's {@code statements}, then answers the next append's refusal, which must be
     * {@code FAILED} (see {@link #refusedAppend()}).
     */
    JournalException failedAfter(String... statements) throws Exception {
      sql(statements);
      JournalException e = refusedAppend();
      assertThat(e.reason()).as(e.getMessage()).isEqualTo(JournalException.Reason.FAILED);
      return e;
    }

    /** The next append's refusal; the journal then refuses every append, and holds no lock. */
    JournalException refusedAppend() {
      Throwable t = catchThrowable(() -> journal.append(PostgresJournalTest.authorised(1)));
      assertThat(t).isInstanceOf(JournalException.class);
      assertThat(journal.refusesAppends()).isPresent();
      assertThat(journal.locked()).isFalse();
      return (JournalException) t;
    }
  }

  @Test
  void aTriggerDroppingRows_failsTheJournal_namingTheTrigger_notATakeover() throws Exception {
    Opened o = Opened.open();
    try (PostgresJournal j = o.journal()) {
      o.sql(
          "CREATE FUNCTION swallow() RETURNS trigger LANGUAGE plpgsql AS"
              + " $$BEGIN RETURN NULL; END$$",
          "CREATE TRIGGER swallower BEFORE INSERT ON mesh_journal_record"
              + " FOR EACH ROW EXECUTE FUNCTION swallow()");
      JournalException e = o.refusedAppend();
      assertThat(e.reason()).as(e.getMessage()).isEqualTo(JournalException.Reason.FAILED);
      assertThat(e.getMessage())
          .contains("stored 0 of its 1 records although its epoch (1) is still current")
          .contains("no steward took it over")
          .contains("it carries trigger swallower")
          .doesNotContain("taken over by another steward");
    }
    assertThat(o.rows()).isEqualTo(2);
  }

  @Test
  void aRuleInsertingNothing_failsTheJournal_inTheServersWords() throws Exception {
    Opened o = Opened.open();
    try (PostgresJournal j = o.journal()) {
      o.sql("CREATE RULE nothing AS ON INSERT TO mesh_journal_record DO INSTEAD NOTHING");
      JournalException e = o.refusedAppend();
      assertThat(e.reason()).as(e.getMessage()).isEqualTo(JournalException.Reason.FAILED);
      // The insert's RETURNING (a column type check) makes the server refuse the rule outright.
      assertThat(e.getMessage())
          .contains("cannot perform INSERT RETURNING on relation \"mesh_journal_record\"")
          .doesNotContain("taken over by another steward");
    }
    assertThat(o.rows()).isEqualTo(2);
  }

  @Test
  void anOwnerRowDeletedByHand_failsTheJournal_sayingSo_notATakeover() throws Exception {
    Opened o = Opened.open();
    try (PostgresJournal j = o.journal()) {
      o.sql("DELETE FROM mesh_journal_owner");
      JournalException e = o.refusedAppend();
      assertThat(e.reason()).as(e.getMessage()).isEqualTo(JournalException.Reason.FAILED);
      assertThat(e.getMessage())
          .contains("has no owner row in mesh_journal_owner any more")
          .doesNotContain("taken over by another steward");
    }
    assertThat(o.rows()).isEqualTo(2);
  }

  @Test
  void anOwnerRowDeletedByHand_isNamedAsSuchByTheHeartbeatToo() throws Exception {
    Opened o = Opened.open(role());
    try (PostgresJournal j = o.journal()) {
      o.sql("DELETE FROM mesh_journal_owner");
      assertThat(o.heartbeatFailure())
          .contains("has no owner row in mesh_journal_owner any more")
          .doesNotContain("taken over by another steward");
    }
    assertThat(o.rows()).isEqualTo(2);
  }

  /** A new role's name (roles belong to the whole server, not to one database). */
  static String role() {
    return "r" + java.util.UUID.randomUUID().toString().replace("-", "");
  }

  @Test
  void selectOnTheOwnerTableRevoked_failsTheJournalAtItsHeartbeat_sayingTheServerRefused()
      throws Exception {
    String role = role();
    Opened o = Opened.open(role);
    try (PostgresJournal j = o.journal()) {
      o.sql("REVOKE SELECT ON mesh_journal_owner FROM " + role);
      assertThat(o.heartbeatFailure())
          .contains("heartbeat's check of the epoch refused by the server")
          .contains("permission denied for table mesh_journal_owner")
          .doesNotContain("lost its database session");
      assertThat(o.refusedAppend().reason()).isEqualTo(JournalException.Reason.FAILED);
    }
    assertThat(o.rows()).isEqualTo(2);
  }

  @Test
  void insertRevoked_failsTheBatch_namingThePrivilege_andStoresNothing() throws Exception {
    String role = role();
    Opened o = Opened.open(role);
    try (PostgresJournal j = o.journal()) {
      o.sql("REVOKE INSERT ON mesh_journal_record FROM " + role);
      JournalException e = o.refusedAppend();
      assertThat(e.reason()).as(e.getMessage()).isEqualTo(JournalException.Reason.FAILED);
      assertThat(e.getMessage())
          .contains("permission denied for table mesh_journal_record")
          .as("refused before its commit was sent")
          .doesNotContain("may still be found on restart");
    }
    assertThat(o.rows()).isEqualTo(2);
  }

  @Test
  void aRecordStoredTwiceOnceThePrimaryKeyIsDropped_isRefusedOnOpening_namingIt() throws Exception {
    Opened o = Opened.open();
    o.journal().close();
    o.sql(
        "ALTER TABLE mesh_journal_record DROP CONSTRAINT mesh_journal_record_pkey",
        "INSERT INTO mesh_journal_record SELECT * FROM mesh_journal_record WHERE seq = 0");
    Throwable t =
        catchThrowable(
            () -> PostgresJournal.open(PostgresLocation.parse(server.url(o.database())), o.name()));
    assertThat(t).isInstanceOf(JournalException.class);
    assertThat(((JournalException) t).reason()).isEqualTo(JournalException.Reason.CORRUPT);
    assertThat(t.getMessage())
        .startsWith("journal record 0: is stored in more than one row of mesh_journal_record")
        .doesNotContain("missing");
  }

  @Test
  void aColumnDroppedOrRetyped_failsTheBatchBeforeItsCommit() throws Exception {
    Opened dropped = Opened.open();
    try (PostgresJournal j = dropped.journal()) {
      dropped.sql("ALTER TABLE mesh_journal_record DROP COLUMN line");
      JournalException e = dropped.refusedAppend();
      assertThat(e.reason()).as(e.getMessage()).isEqualTo(JournalException.Reason.FAILED);
      assertThat(e.getMessage())
          .contains("column \"line\"")
          .doesNotContain("may still be found on restart");
    }
    Opened retyped = Opened.open();
    try (PostgresJournal j = retyped.journal()) {
      retyped.sql(
          "ALTER TABLE mesh_journal_record ALTER COLUMN line TYPE text"
              + " USING encode(line, 'escape')");
      JournalException e = retyped.refusedAppend();
      assertThat(e.reason()).as(e.getMessage()).isEqualTo(JournalException.Reason.FAILED);
      assertThat(e.getMessage())
          .contains("a column of mesh_journal_record no longer has the type the journal created")
          .doesNotContain("may still be found on restart");
    }
    assertThat(retyped.rows()).as("nothing stored as text").isEqualTo(2);
  }

  /**
   * A COMMIT answered with a warning is refused whatever raised it (SPEC.md 60.7, "Durability"):
   * here a deferred trigger of the administrator's, which the server runs at COMMIT. The journal
   * cannot tell a harmless warning from the cancelled standby wait by its class (both are {@code
   * 01000}), so it keeps the safe side; a notice at COMMIT is passed over.
   */
  @Test
  void aDeferredTriggersWarningAtCommit_isRefused_whileItsNoticeIsPassedOver() throws Exception {
    Opened noticed = Opened.open();
    try (PostgresJournal j = noticed.journal()) {
      noticed.sql(deferredTrigger("NOTICE"));
      j.append(PostgresJournalTest.authorised(1));
    }
    assertThat(noticed.rows()).isEqualTo(3);
    Opened warned = Opened.open();
    try (PostgresJournal j = warned.journal()) {
      warned.sql(deferredTrigger("WARNING"));
      JournalException e = warned.refusedAppend();
      assertThat(e.reason()).as(e.getMessage()).isEqualTo(JournalException.Reason.FAILED);
      assertThat(e.getMessage())
          .contains("committed with a warning from the server, \"audited\" (SQLSTATE 01000)")
          .contains("may still be found on restart");
    }
    assertThat(warned.rows()).as("committed, and refused").isEqualTo(3);
  }

  /**
   * A COMMIT the server answers with an error rolled the batch back (SPEC.md 60.7, "Faults"): the
   * refusal says nothing of it is stored, not that its commit went unanswered and its records may
   * turn up, which sent an operator looking for records that can never appear.
   */
  @Test
  void aCommitAnsweredWithAnError_isRefused_sayingNothingOfTheBatchIsStored() throws Exception {
    Opened o = Opened.open();
    try (PostgresJournal j = o.journal()) {
      JournalException e = o.failedAfter(deferredTrigger("EXCEPTION"));
      assertThat(e.getMessage())
          .contains("ERROR: audited")
          .contains("answered its commit with this error and rolled it back")
          .contains("records 2 to 2 are not stored")
          .doesNotContain("may still be found on restart");
    }
    assertThat(o.rows()).as("rolled back").isEqualTo(2);
  }

  /** An audit trigger that raises {@code level} as each insert commits. */
  private static String[] deferredTrigger(String level) {
    return new String[] {
      "CREATE FUNCTION audit() RETURNS trigger LANGUAGE plpgsql AS $$BEGIN RAISE "
          + level
          + " 'audited'; RETURN NULL; END$$",
      "CREATE CONSTRAINT TRIGGER auditor AFTER INSERT ON mesh_journal_record"
          + " DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION audit()"
    };
  }

  @Test
  void anEpochRaisedByAnotherSteward_isStillATakeover() throws Exception {
    Opened o = Opened.open();
    try (PostgresJournal j = o.journal()) {
      o.sql("UPDATE mesh_journal_owner SET epoch = epoch + 1");
      JournalException e = o.refusedAppend();
      assertThat(e.reason()).as(e.getMessage()).isEqualTo(JournalException.Reason.FENCED);
      assertThat(e.getMessage()).contains("taken over by another steward");
    }
    assertThat(o.rows()).isEqualTo(2);
  }
}
