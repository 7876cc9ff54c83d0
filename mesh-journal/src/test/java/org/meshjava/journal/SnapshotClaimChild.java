package org.meshjava.journal;

import java.nio.file.Path;

/**
 * The second process of {@link SnapshotFolderClaimTest}: claims the snapshot folder named by its
 * one argument and prints {@code CLAIMED} or {@code REFUSED <reason>}; a claimer holds the folder
 * until its standard input closes.
 */
public final class SnapshotClaimChild {
  private SnapshotClaimChild() {}

  public static void main(String[] args) throws Exception {
    SnapshotFolderClaim claim;
    try {
      claim = new FileSnapshotStore(Path.of(args[0])).claim();
    } catch (SnapshotException e) {
      System.out.println("REFUSED " + e.reason());
      System.out.flush();
      return;
    }
    System.out.println("CLAIMED");
    System.out.flush();
    while (System.in.read() >= 0) {
      // Hold until the parent closes our input (or dies).
    }
    claim.close();
  }
}
