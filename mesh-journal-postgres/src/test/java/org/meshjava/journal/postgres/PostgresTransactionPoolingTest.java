package org.meshjava.journal.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.meshjava.journal.JournalException;

/**
 * A pooling proxy in transaction mode between the steward and the database (SPEC.md 60.7, "Lease"):
 * the journal's lock, idle limit and pinned path are its session's, and such a proxy runs each
 * transaction on whichever server connection is free. The lock then stays with a connection the
 * steward no longer speaks on, held after the steward stops. Where two statements are seen to reach
 * two server processes, opening is refused, and a running journal fails at its next heartbeat, each
 * naming the pooling; played here by {@link TransactionPool}, since no PgBouncer is at hand.
 */
class PostgresTransactionPoolingTest {
  @BeforeAll
  static void startServer() {
    PostgresJournalTest.startServer();
  }

  @Test
  void anOpeningWhoseStatementsTwoSessionsAnswer_isRefusedUnlockable_andRaisesNothing()
      throws Exception {
    String name = PostgresJournalTest.newName();
    PostgresLocation location = PostgresJournalTest.location();
    try (PostgresJournal j = PostgresJournal.open(location, name)) {
      j.append(PostgresJournalTest.authorised(0));
    }
    JournalException e =
        catchThrowableOfType(
            JournalException.class,
            () ->
                PostgresJournal.open(
                        location,
                        name,
                        () -> {},
                        c -> TransactionPool.over(c, location).switching(true).connection())
                    .close());
    assertThat(e).isNotNull();
    assertThat(e.reason()).as(e.getMessage()).isEqualTo(JournalException.Reason.UNLOCKABLE);
    assertThat(e.getMessage()).contains("pool_mode=transaction").contains("pg_terminate_backend(");
    try (PostgresJournal j = PostgresJournal.open(location, name)) {
      assertThat(j.epoch()).as("the refused opening raised nothing").isEqualTo(2);
      assertThat(j.position().count()).isEqualTo(2);
    }
  }

  @Test
  void aSessionThatChangesUnderAnOpenJournal_failsItAtTheNextHeartbeat() throws Exception {
    String name = PostgresJournalTest.newName();
    PostgresLocation location = PostgresJournalTest.location().withLease(Duration.ofSeconds(1));
    TransactionPool[] pool = new TransactionPool[1];
    try (PostgresJournal j =
        PostgresJournal.open(
            location,
            name,
            () -> {},
            c -> {
              pool[0] = TransactionPool.over(c, location);
              return pool[0].connection();
            })) {
      j.append(PostgresJournalTest.authorised(0));
      pool[0].switching(true);
      long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
      while (j.refusesAppends().isEmpty() && System.nanoTime() < deadline) {
        Thread.sleep(20);
      }
      assertThat(j.refusesAppends()).isPresent();
      assertThat(j.refusesAppends().get())
          .contains("cannot tell that it still holds its lock")
          .contains("pool_mode=transaction");
      assertThat(j.locked()).isFalse();
    }
  }

  /**
   * A batch run on another server process than the one holding the lock is not checked for it (only
   * the heartbeat is), and needs not be: a pooling proxy keeps a transaction on one server
   * connection, so the insert and its {@code COMMIT} are answered by one process, and the insert
   * carries the epoch in the same statement, so once a successor has the lock (the holder's session
   * let it go: ended, or idle past the lease) and raised the epoch, a batch on any process stores
   * nothing. Here the heartbeat is held back so that the batch meets the fence first.
   */
  @Test
  void aBatchOnAnotherProcessAfterASuccessorTookTheLock_isFenced_andStoresNothing()
      throws Exception {
    String name = PostgresJournalTest.newName();
    PostgresLocation location = PostgresJournalTest.location();
    TransactionPool[] pool = new TransactionPool[1];
    Connection[] holder = new Connection[1];
    CountDownLatch resume = new CountDownLatch(1);
    try (PostgresJournal stale =
        PostgresJournal.open(
            location,
            name,
            () -> {},
            c -> {
              holder[0] = c;
              pool[0] = TransactionPool.over(c, location);
              return pool[0].connection();
            })) {
      stale.append(PostgresJournalTest.authorised(0));
      stale.beforeEachBeat(
          () -> {
            try {
              resume.await();
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
          });
      pool[0].switching(true);
      // The lock's session lets it go, as one ended or idle past the lease would, and the proxy
      // hands the journal's transactions on.
      try (Statement s = holder[0].createStatement()) {
        s.execute("SELECT pg_advisory_unlock_all()");
      }
      try (PostgresJournal successor = PostgresJournal.open(location, name)) {
        assertThat(successor.epoch()).isEqualTo(2);
        successor.append(PostgresJournalTest.authorised(1));

        JournalException e =
            catchThrowableOfType(
                JournalException.class, () -> stale.append(PostgresJournalTest.authorised(2)));
        assertThat(e).isNotNull();
        assertThat(e.reason()).as(e.getMessage()).isEqualTo(JournalException.Reason.FENCED);
        assertThat(e.getMessage()).doesNotContain("may still be found on restart");

        successor.append(PostgresJournalTest.authorised(3));
        assertThat(successor.position().count()).isEqualTo(4);
      } finally {
        resume.countDown();
      }
    }
    assertThat(PostgresJournalTest.rows(name)).hasSize(4);
  }

  /**
   * A proxy that hands the one server connection it holds to every client (transaction mode with a
   * pool of one, or session mode without a reset query such as {@code DISCARD ALL}): a second
   * steward's statements reach the first's session, where the journal's advisory lock, taken again,
   * is granted at once (a session's locks stack), and the pid checks see the same process. It
   * opened, raised the epoch and fenced the running steward, where a second steward is to be
   * refused; it is now refused {@code UNLOCKABLE} before anything is raised, since a new session
   * holds no lock of the journal's, and the running one goes on.
   */
  @Test
  void anOpeningOnAServerSessionThatAlreadyHoldsTheJournalsLock_isRefusedUnlockable()
      throws Exception {
    Refused refused =
        secondStewardOnTheFirstsSession(
            PostgresJournalTest.location(), PostgresTransactionPoolingTest::handedOn);
    assertThat(refused.refusal().getMessage())
        .contains("already holds the journal's lock")
        .contains("pg_terminate_backend(");
  }

  /**
   * The same, behind a proxy in transaction mode whose statements go to the first steward's server
   * session and another one in turn: the refusal tells the operator to end the process that holds
   * the lock, the one that answered the attempt to take it, never the one answering a later
   * statement. It named the process answering its own next statement, which here holds nothing
   * (ending it ends an innocent session) while the one holding the lock went unnamed.
   */
  @Test
  void anOpeningRefusedForAStackedLockBehindATransactionPool_namesTheProcessHoldingIt()
      throws Exception {
    PostgresLocation location = PostgresJournalTest.location();
    Refused refused =
        secondStewardOnTheFirstsSession(
            // Waiting, so that an attempt lands on the first steward's session.
            location.withLockWait(Duration.ofSeconds(5)),
            server ->
                TransactionPool.over(handedOn(server), location).switching(true).connection());
    assertThat(refused.refusal().getMessage())
        .contains("(process " + refused.holding() + ") already holds the journal's lock")
        .contains("pg_terminate_backend(" + refused.holding() + ")");
  }

  /** A second opening's refusal, and the pid of the first steward's session (holding the lock). */
  private record Refused(JournalException refusal, long holding) {}

  /**
   * Opens a first steward, then a second at {@code secondAt} whose connection {@code handOn} makes
   * of the first's server session, as a proxy would hand it on: answers the second's refusal, which
   * must be {@code UNLOCKABLE}, once the first has gone on writing at its own epoch.
   */
  private static Refused secondStewardOnTheFirstsSession(
      PostgresLocation secondAt, PostgresJournal.Sessions handOn) throws Exception {
    String name = PostgresJournalTest.newName();
    Connection[] server = new Connection[1];
    Refused refused;
    try (PostgresJournal first =
        PostgresJournal.open(
            PostgresJournalTest.location(),
            name,
            () -> {},
            c -> {
              server[0] = c;
              return c;
            })) {
      first.append(PostgresJournalTest.authorised(0));
      long holding;
      try (Statement s = server[0].createStatement();
          java.sql.ResultSet rs = s.executeQuery("SELECT pg_backend_pid()")) {
        rs.next();
        holding = rs.getLong(1);
      }
      JournalException e =
          catchThrowableOfType(
              JournalException.class,
              () ->
                  PostgresJournal.open(
                          secondAt,
                          name,
                          () -> {},
                          c -> {
                            c.close();
                            return handOn.wrap(server[0]);
                          })
                      .close());
      assertThat(e).isNotNull();
      assertThat(e.reason()).as(e.getMessage()).isEqualTo(JournalException.Reason.UNLOCKABLE);
      first.append(PostgresJournalTest.authorised(1));
      assertThat(first.epoch()).isEqualTo(1);
      refused = new Refused(e, holding);
    }
    assertThat(PostgresJournalTest.rows(name)).hasSize(3);
    return refused;
  }

  /** {@code server} as a proxy hands it to another client: closing that client's leaves it open. */
  private static Connection handedOn(Connection server) {
    return (Connection)
        Proxy.newProxyInstance(
            Connection.class.getClassLoader(),
            new Class<?>[] {Connection.class},
            (proxy, m, args) -> {
              if (m.getName().equals("close")) {
                return null;
              }
              try {
                return m.invoke(server, args);
              } catch (InvocationTargetException x) {
                throw x.getCause();
              }
            });
  }
}
