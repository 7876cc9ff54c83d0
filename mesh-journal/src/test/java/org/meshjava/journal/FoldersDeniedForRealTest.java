package org.meshjava.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.journal.internal.JournalSegments;
import org.meshjava.journal.testing.ChildJava;

/**
 * The remedies a denied opening or read gives, seen through the opening itself where the folders
 * are denied for real: a killed archive's {@code .archiving} copy in a journal folder this user may
 * not write, a pending segment in a segment folder it may not write (both met by an opening), and a
 * segment folder it may not list (met by a read from the first record). Regression: the tests of
 * those remedies asked their builders for the words (FileJournalPermissionDeniedTest,
 * SegmentFolderDeniedTest), so an opening that refused without them passed every test. The tests
 * run as root in CI, whom no folder denies, so the opening runs in a child JVM without the
 * capabilities that let root past a folder's mode ({@code setpriv}); as another user, the folder's
 * mode alone denies it. Where root has no {@code setpriv}, it is skipped.
 */
class FoldersDeniedForRealTest {
  private static final String SETPRIV = "/usr/bin/setpriv";

  @TempDir Path dir;

  // Slow: a child JVM. FileJournalPermissionDeniedTest stages the settling's denial in-process.
  @Test
  @Tag("slow")
  void anOpeningOrAReadDeniedForReal_saysWhatToDo() throws Exception {
    Path base = dir.toRealPath();
    // What this user makes is its own: owned by uid 0, it is root.
    boolean root = Integer.valueOf(0).equals(Files.getAttribute(base, "unix:uid"));
    assumeTrue(!root || Files.isExecutable(Path.of(SETPRIV)), "setpriv, to deny root a folder");

    // A copy an archive killed before its rename left, in a folder this user may not write.
    Path copied =
        FileJournalStreamTest.journal(Files.createDirectory(base.resolve("a")).resolve("j.log"), 3);
    Path copy = copied.resolveSibling("j.log" + JournalOwnedName.ARCHIVING);
    Files.write(copy, new byte[] {'x'});
    // A pending segment an archive killed at its cut left, in a segment folder it may not write.
    Path cut =
        SettledSegmentCutForcedTest.archivedOnce(
            Files.createDirectory(base.resolve("b")).resolve("j.log"));
    SettledSegmentCutForcedTest.archiveKilledAtTheCut(cut, 8);
    Path pending = JournalSegments.pendingFile(cut, 3);
    // Segments in a folder it may not list.
    Path archived =
        SettledSegmentCutForcedTest.archivedOnce(
            Files.createDirectory(base.resolve("c")).resolve("j.log"));

    // A segment it may not read, in a folder it may list.
    Path unreadable =
        SettledSegmentCutForcedTest.archivedOnce(
            Files.createDirectory(base.resolve("d")).resolve("j.log"));
    Path segment = JournalSegments.file(unreadable, 0);

    List<Path> denied =
        List.of(
            copied.getParent(),
            JournalSegments.directory(cut),
            JournalSegments.directory(archived),
            segment);
    List<String> modes = List.of("r-xr-xr-x", "r-xr-xr-x", "---------", "---------");
    List<String> lines;
    try {
      for (int i = 0; i < denied.size(); i++) {
        Files.setPosixFilePermissions(denied.get(i), PosixFilePermissions.fromString(modes.get(i)));
      }
      lines = run(root, "open:" + copied, "open:" + cut, "scan:" + archived, "scan:" + unreadable);
    } finally {
      for (Path d : denied) {
        Files.setPosixFilePermissions(d, PosixFilePermissions.fromString("rwx------"));
      }
    }

    assertThat(lines)
        .containsExactly(
            "cannot recover "
                + copied
                + ": permission denied: "
                + copy
                + "; grant this user write access to the journal's folder "
                + copied.getParent()
                + " and to its segment folder "
                + JournalSegments.directory(copied)
                + ", or run as the user who owns them",
            "cannot recover "
                + pending
                + ": permission denied; grant this user write access to the journal's folder "
                + cut.getParent()
                + " and to its segment folder "
                + JournalSegments.directory(cut)
                + ", or run as the user who owns them",
            "cannot list "
                + JournalSegments.directory(archived)
                + ": permission denied; grant this user read access to the segment folder "
                + JournalSegments.directory(archived)
                + " and the segments in it, or run as the user who owns them",
            "cannot read "
                + segment
                + ": permission denied; grant this user read access to the segment folder "
                + JournalSegments.directory(unreadable)
                + " and the segments in it, or run as the user who owns them");
    // Nothing the archive left was taken while it was denied.
    assertThat(copy).exists();
    assertThat(pending).exists();
  }

  /** The lines {@link FoldersDeniedChild} prints for {@code args}, denied as root would not be. */
  private static List<String> run(boolean root, String... args) throws Exception {
    List<String> cmd = new ArrayList<>();
    if (root) {
      cmd.addAll(
          List.of(
              SETPRIV,
              "--bounding-set=-dac_override,-dac_read_search",
              "--inh-caps=-dac_override,-dac_read_search"));
    }
    cmd.addAll(ChildJava.command(FoldersDeniedChild.class, args));
    return FileSizeLimitTest.linesOf(cmd);
  }
}
