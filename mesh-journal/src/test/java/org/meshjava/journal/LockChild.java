package org.meshjava.journal;

import java.nio.file.Path;

/**
 * The second process of the lock tests. Opens the journal named by its one argument and prints
 * {@code OPEN}, or {@code LOCKED} / {@code REFUSED <reason>}; an opener holds the journal until its
 * standard input closes.
 */
public final class LockChild {
  private LockChild() {}

  public static void main(String[] args) throws Exception {
    FileJournal j;
    try {
      j = FileJournal.open(Path.of(args[0]));
    } catch (JournalException e) {
      System.out.println(
          e.reason() == JournalException.Reason.LOCKED ? "LOCKED" : "REFUSED " + e.reason());
      System.out.flush();
      return;
    }
    System.out.println("OPEN");
    System.out.flush();
    while (System.in.read() >= 0) {
      // Hold until the parent closes our input (or dies).
    }
    j.close();
  }
}
