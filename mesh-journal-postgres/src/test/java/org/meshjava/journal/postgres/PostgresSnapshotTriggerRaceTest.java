package org.meshjava.journal.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.meshjava.journal.Snapshot;
import org.meshjava.journal.SnapshotException;
import org.meshjava.testpg.PostgresTestServer;

/**
 * A trigger put on {@code mesh_journal_snapshot} while a save is under way, between its check of
 * the table's triggers and its insert (SPEC.md 60.8). The check ran before the save's transaction,
 * so the insert fired a trigger the check never saw, which wrote the row under another journal's
 * name, and the save was acknowledged with none of its own stored. The check now runs in the
 * transaction once it holds the table's lock, which {@code CREATE TRIGGER} waits for: the save
 * stores what it was given, and the trigger, made after it, refuses the next.
 */
class PostgresSnapshotTriggerRaceTest {
  @Test
  void aTriggerMadeWhileASaveIsUnderWay_neverFiresInThatSave_andRefusesTheNext() throws Exception {
    PostgresTestServer server = PostgresTestServer.shared();
    String db = PostgresSnapshotStoreTest.databaseWithASnapshot(server);
    PostgresLocation location = PostgresLocation.parse(server.url(db));
    try (Connection c = server.connect(db);
        Statement s = c.createStatement()) {
      s.execute(
          "CREATE FUNCTION steal() RETURNS trigger LANGUAGE plpgsql AS"
              + " $$BEGIN NEW.journal := 'did:key:thief'; RETURN NEW; END$$");
    }
    Connection dba = server.connect(db);
    CompletableFuture<Void> made = new CompletableFuture<>();
    PostgresSnapshotStore store =
        PostgresSnapshotStore.of(location, "did:key:a", () -> makeTrigger(dba, made));
    Snapshot saved = PostgresSnapshotStoreTest.at(2);
    try {
      store.save(saved);
      made.get();
    } finally {
      dba.close();
    }
    assertThat(PostgresSnapshotStore.of(location, "did:key:a").latest())
        .as("the save's own row")
        .hasValueSatisfying(b -> assertThat(b).isEqualTo(saved.encoded()));
    SnapshotException refused =
        catchThrowableOfType(
            SnapshotException.class,
            () ->
                PostgresSnapshotStore.of(location, "did:key:a")
                    .save(PostgresSnapshotStoreTest.at(3)));
    assertThat(refused).isNotNull();
    assertThat(refused.getMessage()).contains("carries trigger stealer");
  }

  /**
   * Starts the DBA's {@code CREATE TRIGGER} on {@code dba} and returns once it is done or waits for
   * a lock (the save's); {@code made} completes when it is done.
   */
  private static void makeTrigger(Connection dba, CompletableFuture<Void> made) {
    try {
      long pid;
      try (Statement s = dba.createStatement();
          ResultSet rs = s.executeQuery("SELECT pg_backend_pid()")) {
        rs.next();
        pid = rs.getLong(1);
      }
      CompletableFuture.runAsync(
          () -> {
            try (Statement s = dba.createStatement()) {
              s.execute(
                  "CREATE TRIGGER stealer BEFORE INSERT ON mesh_journal_snapshot"
                      + " FOR EACH ROW EXECUTE FUNCTION steal()");
              made.complete(null);
            } catch (Exception e) {
              made.completeExceptionally(e);
            }
          });
      long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
      try (Connection watch = PostgresTestServer.shared().connect("postgres");
          Statement s = watch.createStatement()) {
        while (!made.isDone() && System.nanoTime() < deadline) {
          try (ResultSet rs =
              s.executeQuery(
                  "SELECT 1 FROM pg_stat_activity WHERE pid = "
                      + pid
                      + " AND wait_event_type = 'Lock'")) {
            if (rs.next()) {
              return;
            }
          }
          Thread.sleep(10);
        }
      }
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
