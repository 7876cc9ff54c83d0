package org.meshjava.journal;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;

/**
 * The second process of {@link SnapshotFolderClaimTest}: claims the snapshot folder named by its
 * one argument and prints {@code CLAIMED} or {@code REFUSED <reason>}; a claimer holds the folder
 * until its standard input closes.
 */
public final class SnapshotClaimChild {
  private SnapshotClaimChild() {}

  /** What runs while another process holds the folder. */
  @FunctionalInterface
  interface WhileHeld {
    void run() throws Exception;
  }

  /**
   * Runs {@code body} while a child process holds {@code dir}'s claim, and kills that process
   * after; the kernel then drops its lock, leaving its lock file behind as a killed steward would.
   */
  static void whileClaimedElsewhere(Path dir, WhileHeld body) throws Exception {
    Process child = ChildJvm.start(SnapshotClaimChild.class, dir);
    try {
      assertThat(ChildJvm.firstLine(child)).isEqualTo("CLAIMED");
      body.run();
    } finally {
      child.destroyForcibly().waitFor();
    }
  }

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
