package org.meshjava.journal.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.meshjava.journal.postgres.PostgresJournalTest.authorised;
import static org.meshjava.journal.postgres.PostgresJournalTest.location;
import static org.meshjava.journal.postgres.PostgresJournalTest.newName;
import static org.meshjava.journal.postgres.PostgresJournalTest.rows;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.meshjava.journal.JournalException;
import org.postgresql.util.PSQLException;
import org.postgresql.util.PSQLState;
import org.postgresql.util.ServerErrorMessage;

/**
 * A {@code COMMIT} the server made durable and then answered with an error of a code of its own
 * rather than a lost connection's (SPEC.md 60.7, "Faults"): a server that fails to flush its log (a
 * {@code PANIC}, {@code 58030}) or errs after the commit record ({@code PANIC}, "cannot abort
 * transaction ..., it was already committed", {@code XX000}) stops, and the driver throws the
 * server's error first, the lost connection chained after it. The records may then be found on
 * restart, so the refusal must not say they are not stored (a caller told so may try again and be
 * served twice); only an error after which the session goes on proves the server rolled back.
 */
class PostgresCommitAnswerLostTest {
  @BeforeAll
  static void startServer() {
    PostgresJournalTest.startServer();
  }

  /**
   * Makes the journal's sessions: once {@link #arm armed}, the next {@code COMMIT} (the heartbeat
   * commits none) goes through, after which the server is taken to have stopped as {@code error}
   * says: the connection is gone, as the driver's is once it reads the end of the stream, and the
   * server's last words are thrown, the lost connection chained after them.
   */
  private static final class PanicAfterCommit {
    private final String error;
    private volatile boolean armed;

    PanicAfterCommit(String error) {
      this.error = error;
    }

    void arm() {
      armed = true;
    }

    Connection wrap(Connection real) {
      return (Connection)
          Proxy.newProxyInstance(
              Connection.class.getClassLoader(),
              new Class<?>[] {Connection.class},
              (p, m, args) -> {
                Object r;
                try {
                  r = m.invoke(real, args);
                } catch (InvocationTargetException e) {
                  throw e.getCause();
                }
                if (m.getName().equals("commit") && args == null && armed) {
                  armed = false;
                  real.close();
                  PSQLException panic = new PSQLException(new ServerErrorMessage(error));
                  panic.setNextException(
                      new PSQLException(
                          "An I/O error occurred while sending to the backend.",
                          PSQLState.CONNECTION_FAILURE));
                  throw panic;
                }
                return r;
              });
    }
  }

  private static void assertCommittedButRefusedAsUnknown(String error) throws Exception {
    String name = newName();
    try (PostgresJournal j = PostgresJournal.open(location(), name)) {
      j.append(authorised(0));
    }
    PanicAfterCommit sessions = new PanicAfterCommit(error);
    try (PostgresJournal j = PostgresJournal.open(location(), name, () -> {}, sessions::wrap)) {
      sessions.arm();
      Throwable t = catchThrowable(() -> j.append(authorised(1)));
      assertThat(t).isInstanceOf(JournalException.class);
      JournalException e = (JournalException) t;
      assertThat(e.reason()).as(e.getMessage()).isEqualTo(JournalException.Reason.FAILED);
      assertThat(e.getMessage())
          .as("the server stopped after its commit record")
          .contains("records 2 to 2 may still be found on restart")
          .doesNotContain("not stored");
    }
    // And it was committed: "may be found" is what happened.
    assertThat(rows(name)).hasSize(3);
    try (PostgresJournal j = PostgresJournal.open(location(), name)) {
      assertThat(j.position().count()).isEqualTo(3);
    }
  }

  @Test
  void aCommitFollowedByTheServersPanicOnItsLogFlush_isNotSaidToBeRolledBack() throws Exception {
    assertCommittedButRefusedAsUnknown(
        "SPANIC\0VPANIC\0C58030\0Mcould not fsync file \"pg_wal/000000010000000000000001\":"
            + " Input/output error\0");
  }

  @Test
  void aCommitFollowedByAnInternalErrorThatCannotAbortIt_isNotSaidToBeRolledBack()
      throws Exception {
    assertCommittedButRefusedAsUnknown(
        "SPANIC\0VPANIC\0CXX000\0Mcannot abort transaction 1234, it was already committed\0");
  }
}
