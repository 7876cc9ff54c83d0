package org.meshjava.journal;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * One of the two processes of {@link JournalOpenRaceTest}. At each {@code go} line it opens the
 * journal named by its one argument and answers {@code OPEN}, {@code LOCKED} or {@code REFUSED
 * <reason> <message>}; at the next line an opener appends one record and closes the journal, and
 * either answers {@code DONE} (or {@code FAILED <message>}). Ends when its input closes.
 */
public final class OpenRaceChild {
  private OpenRaceChild() {}

  public static void main(String[] args) throws Exception {
    Path journal = Path.of(args[0]);
    BufferedReader in =
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    for (int round = 0; in.readLine() != null; round++) {
      FileJournal j = null;
      try {
        j = FileJournal.open(journal);
        answer("OPEN");
      } catch (JournalException e) {
        answer(
            e.reason() == JournalException.Reason.LOCKED
                ? "LOCKED"
                : "REFUSED " + e.reason() + " " + e.getMessage());
      }
      if (in.readLine() == null) {
        return;
      }
      if (j == null) {
        answer("DONE");
        continue;
      }
      try (FileJournal held = j) {
        held.append(FileJournalStreamTest.sealed(round));
        answer("DONE");
      } catch (JournalException e) {
        answer("FAILED " + e.getMessage());
      }
    }
  }

  private static void answer(String line) {
    System.out.println(line.replace('\n', ' '));
    System.out.flush();
  }
}
