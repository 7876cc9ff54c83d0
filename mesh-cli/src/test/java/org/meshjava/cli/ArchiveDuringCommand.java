package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.meshjava.cli.MeshCommandTest.mesh;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.meshjava.cli.FileJournalTamperingTest.History;
import org.meshjava.cli.MeshCommandTest.Run;
import org.meshjava.core.crypto.SigningKey;

/**
 * A {@code mesh journal} command that takes no lock, run with {@code --progress-every 1} on a
 * journal archived once, while {@code mesh journal archive} runs from its progress line for a given
 * record: the archive moves the files as the command reads the segments (SPEC.md 60.8,
 * "Verifying").
 *
 * @param command the command's run
 * @param archive the archive's run
 */
record ArchiveDuringCommand(Run command, Run archive) {
  /** A steward's journal of 12 serves, the first 6 archived, in {@code tmp}. */
  static History archivedOnce(Path tmp) throws Exception {
    History h = new History(tmp, SigningKey.generate(), "steward").serve(6, "granted");
    assertThat(mesh("journal", "archive", h.journal.toString()).code()).isZero();
    return h.serve(6, "granted");
  }

  /**
   * Runs {@code mesh journal <args> --progress-every 1}, archiving {@code journal} once stderr
   * reads {@code progress} ("checked 1 record").
   */
  static ArchiveDuringCommand run(Path journal, String progress, String... args) {
    return run(progress, () -> mesh("journal", "archive", journal.toString()), args);
  }

  /**
   * As {@link #run(Path, String, String...)}, with {@code during} (an archive, and whatever else a
   * test does to the files) run once stderr reads {@code progress}.
   */
  static ArchiveDuringCommand run(
      String progress, java.util.function.Supplier<Run> during, String... args) {
    Run[] archive = {null};
    StringWriter err =
        new StringWriter() {
          @Override
          public void write(String s, int off, int len) {
            super.write(s, off, len);
            if (archive[0] == null && toString().contains(progress)) {
              archive[0] = during.get();
            }
          }
        };
    StringWriter out = new StringWriter();
    List<String> line = new ArrayList<>(List.of("journal"));
    line.addAll(List.of(args));
    line.addAll(List.of("--progress-every", "1"));
    int code =
        Mesh.run(
            new PrintWriter(out, true), new PrintWriter(err, true), line.toArray(String[]::new));
    assertThat(archive[0]).as("an archive ran during the command").isNotNull();
    return new ArchiveDuringCommand(new Run(code, out.toString(), err.toString()), archive[0]);
  }
}
