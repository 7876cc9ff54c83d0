package org.meshjava.journal;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two processes opening one journal at the same instant, round after round, the first round making
 * the file: each round exactly one opens and the other is refused {@code LOCKED}, while the winner
 * holds it; the winner appends one record and closes. At the end the journal holds one record per
 * round, in order, none lost and none twice. Attacked, held. Slow (two JVMs); {@code
 * JournalLockTest.twoStewards_racingThroughDifferentNames_exactlyOneOpens} is the default suite's
 * single round.
 */
@Tag("slow")
class JournalOpenRaceTest {
  private static final int ROUNDS = 60;

  @TempDir Path dir;

  @Test
  void twoProcessesOpeningAtOnce_manyTimes_oneWinsEachRound_andNoRecordIsLost() throws Exception {
    Path journal = dir.resolve("steward.journal");
    List<Process> children = new ArrayList<>();
    try {
      for (int i = 0; i < 2; i++) {
        children.add(ChildJvm.start(OpenRaceChild.class, journal));
      }
      List<BufferedReader> answers = new ArrayList<>();
      for (Process p : children) {
        answers.add(
            new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8)));
      }
      int[] wins = new int[2];
      for (int round = 0; round < ROUNDS; round++) {
        tell(children, "go");
        List<String> opened = List.of(answers.get(0).readLine(), answers.get(1).readLine());
        assertThat(opened).as("round %d", round).containsExactlyInAnyOrder("OPEN", "LOCKED");
        wins[opened.indexOf("OPEN")]++;
        tell(children, "release");
        for (BufferedReader r : answers) {
          assertThat(r.readLine()).as("round %d", round).isEqualTo("DONE");
        }
      }
      System.out.printf("JournalOpenRaceTest: wins %d / %d%n", wins[0], wins[1]);
    } finally {
      for (Process p : children) {
        p.getOutputStream().close();
        if (!p.waitFor(20, TimeUnit.SECONDS)) {
          p.destroyForcibly();
        }
      }
    }
    List<JournalRecord> records = FileJournalStreamTest.scan(journal, JournalPosition.GENESIS);
    assertThat(records).hasSize(ROUNDS);
    for (int i = 0; i < ROUNDS; i++) {
      assertThat(records.get(i).seq()).as("record %d in order, once", i).isEqualTo(i);
    }
  }

  /** Writes {@code line} to every child, then flushes each: as near one instant as it gets. */
  private static void tell(List<Process> children, String line) throws Exception {
    for (Process p : children) {
      p.getOutputStream().write((line + "\n").getBytes(StandardCharsets.UTF_8));
    }
    for (Process p : children) {
      OutputStream out = p.getOutputStream();
      out.flush();
    }
  }
}
