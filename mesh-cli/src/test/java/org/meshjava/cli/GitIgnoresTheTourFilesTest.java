package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.meshjava.journal.FileSnapshotStore;
import org.meshjava.journal.internal.JournalSegments;

/**
 * What the README's tour leaves beside its journal in the working copy (the snapshot and segment
 * folders, and the two files {@code journal archive} writes beside the journal) is ignored by the
 * repository's {@code .gitignore}, so that {@code git status} after the tour shows none of it.
 */
class GitIgnoresTheTourFilesTest {
  /**
   * Regression: {@code .gitignore} named the journal and its two folders but not the archive's
   * marker and its hidden twin, so {@code git status} listed both after step 5's {@code journal
   * archive}; nor {@code <journal>.archiving}, which an archive killed before its rename leaves.
   */
  @Test
  void whatAJournalAndItsArchiveWriteBesideIt_isIgnored() throws IOException {
    Path journal = Path.of("steward.journal");
    List<Path> beside =
        List.of(
            journal,
            FileSnapshotStore.beside(journal).directory(),
            JournalSegments.directory(journal),
            JournalSegments.marker(journal),
            JournalSegments.markerTwin(journal),
            // Where an archive writes the live file's new beginning: left by one killed before
            // its rename, until the journal's next start or archive removes it (SPEC.md 60.8).
            Path.of(journal + ".archiving"));
    List<String> patterns = patterns();
    for (Path p : beside) {
      String name = p.getFileName().toString();
      assertThat(patterns.stream().anyMatch(pattern -> ignores(pattern, name)))
          .as("%s is ignored by one of %s", name, patterns)
          .isTrue();
    }
  }

  /**
   * Regression: the sharding section's commands wrote {@code team.hex}, {@code shards/}, {@code
   * shard-body.json}, {@code p.hex} and {@code shard-granted.json} into the working copy, which
   * {@code .gitignore} did not name, so {@code git status} listed them after a reader ran the
   * README's commands. Every file a shell block of the README writes into the working copy ({@code
   * --out}, {@code --out-body}, {@code --out-dir}, {@code -o}, {@code --port-file}, {@code
   * --journal}, {@code --config}, a {@code >} redirection) is now checked against it.
   */
  @Test
  void everyFileTheReadmesShellBlocksWrite_isIgnored() throws IOException {
    String readme = Files.readString(Path.of("..", "README.md"), StandardCharsets.UTF_8);
    java.util.Set<String> written = new java.util.TreeSet<>();
    Matcher block = SHELL_BLOCK.matcher(readme);
    while (block.find()) {
      for (String line : block.group(1).split("\n")) {
        Matcher m = WRITTEN.matcher(line.replaceFirst("\\s#.*$", ""));
        while (m.find()) {
          written.add(m.group(1));
        }
      }
    }
    assertThat(written).contains("steward.key", "grant.hex", "ops.port", "team.hex", "shards");
    List<String> patterns = patterns();
    assertThat(
            written.stream()
                .filter(name -> patterns.stream().noneMatch(pattern -> ignores(pattern, name)))
                .toList())
        .as("files the README's commands write that %s does not ignore", patterns)
        .isEmpty();
  }

  private static final Pattern SHELL_BLOCK =
      Pattern.compile("^```sh\\n(.*?)^```$", Pattern.DOTALL | Pattern.MULTILINE);

  /** An option or redirection naming a file the command writes, relative to the working copy. */
  private static final Pattern WRITTEN =
      Pattern.compile(
          "(?:--out|--out-body|--out-dir|-o|--port-file|--journal|--config|>)"
              + "\\s+([A-Za-z0-9_.][A-Za-z0-9_./-]*)");

  private static List<String> patterns() throws IOException {
    return Files.readAllLines(
            Path.of("..", ".gitignore").toAbsolutePath().normalize(), StandardCharsets.UTF_8)
        .stream()
        .map(String::strip)
        .filter(line -> !line.isEmpty() && !line.startsWith("#") && !line.startsWith("!"))
        .toList();
  }

  /**
   * Whether the {@code .gitignore} line {@code pattern} ignores {@code name} at the repository's
   * root: its simple forms only (a leading {@code /} anchors it there, a trailing one names a
   * folder), which are all the file uses.
   */
  private static boolean ignores(String pattern, String name) {
    String glob = pattern.replaceFirst("^/", "").replaceFirst("/$", "");
    return FileSystems.getDefault().getPathMatcher("glob:" + glob).matches(Path.of(name));
  }
}
