package org.meshjava.journal.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.journal.JournalException;
import org.meshjava.testpg.PostgresTestServer;

/**
 * Regression: an import kept its session alive only when a line arrived, so a source that stalled
 * for longer than the lease between two lines (a FIFO whose writer pauses, a stalled network disk)
 * lost its session to {@code idle_in_transaction_session_timeout} and failed on its next statement
 * with the driver's words for a closed connection. The import now speaks on the journal's heartbeat
 * while it waits for its source (SPEC.md §60.7, "Lease").
 */
class PostgresImportStallTest {
  @TempDir Path dir;

  @Test
  @Timeout(120)
  void anImportFromAFifoThatStallsLongerThanTheLease_keepsItsSession_andCommitsEveryLine()
      throws Exception {
    PostgresTestServer server = PostgresTestServer.shared();
    String db = server.newDatabase();
    PostgresLocation shortLease =
        PostgresLocation.parse(server.url(db)).withLease(Duration.ofSeconds(1));
    List<byte[]> lines = PostgresJournalTest.receiptLines(6);
    Path fifo = dir.resolve("journal.fifo");
    Process mkfifo = new ProcessBuilder("mkfifo", fifo.toString()).inheritIO().start();
    assertThat(mkfifo.waitFor(30, TimeUnit.SECONDS)).isTrue();
    assertThat(mkfifo.exitValue()).isZero();
    // The writer gives three lines, then stalls for two leases with the FIFO open, then the rest:
    // the server ends a session silent for one lease (idle, or idle in its transaction), so twice
    // that fails an import whose session says nothing while it waits, with a lease of margin.
    CompletableFuture<Void> writer =
        CompletableFuture.runAsync(
            () -> {
              try (OutputStream out = Files.newOutputStream(fifo)) {
                for (int i = 0; i < lines.size(); i++) {
                  if (i == 3) {
                    out.flush();
                    Thread.sleep(2_000);
                  }
                  out.write(lines.get(i));
                  out.write('\n');
                }
              } catch (Exception e) {
                throw new IllegalStateException(e);
              }
            });
    String name = "did:key:test-" + UUID.randomUUID();
    long written =
        PostgresJournal.importLines(
            shortLease,
            name,
            sink -> {
              try (InputStream in = new BufferedInputStream(Files.newInputStream(fifo))) {
                ByteArrayOutputStream line = new ByteArrayOutputStream();
                for (int b = in.read(); b >= 0; b = in.read()) {
                  if (b == '\n') {
                    sink.accept(line.toByteArray());
                    line.reset();
                  } else {
                    line.write(b);
                  }
                }
              } catch (java.io.IOException e) {
                throw new JournalException(JournalException.Reason.IO, e.getMessage(), e);
              }
            });
    writer.get(30, TimeUnit.SECONDS);
    assertThat(written).isEqualTo(lines.size());
    assertThat(rows(server, db, name)).containsExactlyElementsOf(lines);
  }

  private static List<byte[]> rows(PostgresTestServer server, String db, String name)
      throws Exception {
    List<byte[]> out = new ArrayList<>();
    try (Connection c = server.connect(db);
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT line FROM mesh_journal_record WHERE journal = ? ORDER BY seq")) {
      ps.setString(1, name);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.add(rs.getBytes(1));
        }
      }
    }
    return out;
  }
}
