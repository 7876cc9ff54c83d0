package org.meshjava.journal;

import java.nio.file.Path;

/**
 * The child of {@link FileSizeLimitTest}: run under a file size limit ({@code ulimit -f}), it
 * appends records to the journal its one argument names until an append is refused, printing {@code
 * ACK i} for each append that returned, then {@code REFUSED <reason>} (or {@code THREW <class>} for
 * anything that is not a journal's refusal).
 */
public final class FileSizeLimitChild {
  private FileSizeLimitChild() {}

  public static void main(String[] args) throws Exception {
    try (FileJournal j = FileJournal.open(Path.of(args[0]))) {
      for (int i = j.recovered().size(); i < 100_000; i++) {
        j.append(FileJournalTest.sealed(i));
        System.out.println("ACK " + i);
      }
    } catch (JournalException e) {
      System.out.println("REFUSED " + e.reason());
    } catch (RuntimeException | Error e) {
      System.out.println("THREW " + e.getClass().getName());
    }
    System.out.flush();
  }
}
