package org.meshjava.journal;

import java.nio.file.Path;

/**
 * The child of {@link FoldersDeniedForRealTest}, run where folders are denied to it for real: for
 * each argument, {@code open:J} opens the journal J and {@code scan:J} reads it from its first
 * record, and it prints one line for each, {@code done} or the refusal's message.
 */
public final class FoldersDeniedChild {
  private FoldersDeniedChild() {}

  public static void main(String[] args) {
    for (String arg : args) {
      Path journal = Path.of(arg.substring(arg.indexOf(':') + 1));
      try {
        if (arg.startsWith("scan:")) {
          FileJournal.scan(journal, JournalPosition.GENESIS, new java.util.HashMap<>(), r -> {});
        } else {
          FileJournal.open(journal).close();
        }
        System.out.println("done");
      } catch (JournalException e) {
        System.out.println(String.valueOf(e.getMessage()).replace('\n', ' '));
      }
    }
    System.out.flush();
  }
}
