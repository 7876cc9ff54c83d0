package org.meshjava.journal;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.journal.internal.JournalSegments;
import org.meshjava.journal.testing.ChildJava;

/**
 * A process appending and archiving in a loop ({@link ArchiveLoopChild}) killed with SIGKILL at a
 * random moment, and then the journal's marker ({@code <journal>.segments-named-after-cut}, SPEC.md
 * 60.8) deleted, replaced by a folder, or copied into the segment folder, as a careless operator or
 * a tamperer might. The next opening must either refuse the journal with a typed reason, and open
 * it with every record once the marker is put back, or open it: either way never a record lost
 * (every one the child saw written is read from record 0) nor doubled (the read checks one chain).
 * One short round of each in the default suite; the long loop runs with {@code -Pslow}.
 */
class ArchiveKilledMarkerTest {
  @TempDir Path dir;

  enum Marker {
    DELETED,
    FOLDER,
    COPIED_INTO_SEGMENT_FOLDER
  }

  @Test
  void oneKill_eachMarkerMishap() throws Exception {
    for (Marker m : Marker.values()) {
      loop(m, 1, 1);
    }
  }

  @Test
  @Tag("slow")
  void manyKills_eachMarkerMishap() throws Exception {
    for (Marker m : Marker.values()) {
      loop(m, 25, m.ordinal() + 7);
    }
  }

  @Test
  void theChild_endsOnceItsParentIsGone() throws Exception {
    Process child =
        new ProcessBuilder(
                ChildJava.command(ArchiveLoopChild.class, dir.resolve("orphan.log").toString()))
            .redirectError(ProcessBuilder.Redirect.DISCARD)
            .start();
    try {
      BufferedReader out =
          new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
      assertThat(out.readLine()).as("the child's output").startsWith("acked ");
      // What a parent JVM that dies (or a test run that is stopped) does to the child's input.
      child.getOutputStream().close();
      // Ends of itself; a child that loops on is killed below and this fails.
      assertThat(child.onExit())
          .as("the child ended once its input closed")
          .succeedsWithin(java.time.Duration.ofMinutes(2));
    } finally {
      child.destroyForcibly().waitFor();
    }
  }

  /** {@code kills} rounds on a journal of its own, the kill's moment drawn from {@code seed}. */
  private void loop(Marker mishap, int kills, long seed) throws Exception {
    Path p = dir.resolve(mishap.name().toLowerCase(java.util.Locale.ROOT) + ".log");
    Random random = new Random(seed);
    long acked = 0;
    List<String> refusals = new ArrayList<>();
    for (int k = 0; k < kills; k++) {
      Process child =
          new ProcessBuilder(ChildJava.command(ArchiveLoopChild.class, p.toString()))
              .redirectError(ProcessBuilder.Redirect.DISCARD)
              .start();
      try {
        // A child that stops answering is killed, so the read below ends (with no line).
        CompletableFuture.delayedExecutor(5, TimeUnit.MINUTES).execute(child::destroyForcibly);
        BufferedReader out =
            new BufferedReader(
                new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
        // Killed after a few rounds of its loop and a little more: inside an archive, often.
        int rounds = 1 + random.nextInt(4);
        for (int r = 0; r < rounds; r++) {
          String line = out.readLine();
          assertThat(line).as("the child's output").isNotNull().startsWith("acked ");
          acked = Math.max(acked, Long.parseLong(line.substring("acked ".length())));
        }
        Thread.sleep(random.nextInt(40));
      } finally {
        // Killed whatever happened above: a failed assertion leaves no child appending.
        child.destroyForcibly().waitFor();
      }
      // Lines it printed after those are lost with its streams: what it acknowledged is at least
      // the count read.

      boolean hadMarker = Files.exists(JournalSegments.marker(p));
      harm(p, mishap);
      try {
        assertWhole(p, acked);
      } catch (JournalException e) {
        // A typed refusal is allowed: a pending segment no longer proven an archive's.
        assertThat(e.reason())
            .as(e.getMessage())
            .isIn(JournalException.Reason.CORRUPT, JournalException.Reason.IO);
        refusals.add(e.getMessage());
        assertThat(hadMarker).as(e.getMessage()).isTrue();
        restore(p, mishap);
        assertWhole(p, acked);
      }
    }
    assertThat(acked).isPositive();
  }

  private static void harm(Path p, Marker mishap) throws Exception {
    Path marker = JournalSegments.marker(p);
    if (!Files.exists(marker)) {
      return;
    }
    switch (mishap) {
      case DELETED -> Files.delete(marker);
      case FOLDER -> {
        Files.delete(marker);
        Files.createDirectory(marker);
      }
      case COPIED_INTO_SEGMENT_FOLDER -> {
        if (Files.isDirectory(JournalSegments.directory(p))) {
          Files.copy(
              marker,
              JournalSegments.directory(p).resolve(marker.getFileName()),
              java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        }
      }
    }
  }

  /** Puts the marker back as an archive writes it. */
  private static void restore(Path p, Marker mishap) throws Exception {
    Path marker = JournalSegments.marker(p);
    if (Files.isDirectory(marker)) {
      Files.delete(marker);
    }
    if (!Files.exists(marker)) {
      Files.writeString(marker, "put back\n");
    }
  }

  /** Opens the journal and reads every record from 0: at least {@code acked}, one chain. */
  private static void assertWhole(Path p, long acked) throws JournalException {
    try (FileJournal j = FileJournal.open(p)) {
      List<JournalRecord> all = new ArrayList<>();
      j.read(JournalPosition.GENESIS, new HashMap<>(), all::add);
      assertThat((long) all.size()).isGreaterThanOrEqualTo(acked);
      for (int i = 0; i < all.size(); i++) {
        assertThat(all.get(i).seq()).isEqualTo(i);
        assertThat(all.get(i).entry()).isEqualTo(FileJournalStreamTest.sealed(i));
      }
    }
  }
}
