package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * The {@code --help} text of every command, byte for byte, against the copies under {@code
 * src/test/resources/help-text/} (one file a command, named by its words: {@code
 * mesh-journal-verify.txt}). It pins {@link HelpText}'s layout (wrapped at spaces only, picocli's
 * columns and indents) so that a change to how it is drawn, or a picocli upgrade, shows as a diff
 * of the text a user reads. After a deliberate change to a command's options or words, write the
 * copies again: {@code -Dtest=HelpTextPinnedTest
 * -Dmesh.helpText.write=<repo>/mesh-cli/src/test/resources/help-text}, then read the diff.
 */
class HelpTextPinnedTest {
  @Test
  void everyCommandsHelp_isTheTextPinned() throws IOException {
    String writeTo = System.getProperty("mesh.helpText.write");
    List<String> differ = new ArrayList<>();
    int commands = 0;
    for (CommandLine c : CommandTree.all(new CommandLine(new Mesh()))) {
      List<String> words = CommandTree.path(c);
      String name = "mesh" + words.stream().map(w -> "-" + w).collect(Collectors.joining());
      List<String> args = new ArrayList<>(words);
      args.add("--help");
      MeshCommandTest.Run r = MeshCommandTest.mesh(args.toArray(String[]::new));
      assertThat(r.code()).as(name + ": " + r.err()).isZero();
      assertThat(r.err()).as(name).isEmpty();
      commands++;
      if (writeTo != null) {
        Files.writeString(Path.of(writeTo, name + ".txt"), r.out(), StandardCharsets.UTF_8);
        continue;
      }
      String pinned = pinned(name);
      if (!r.out().equals(pinned)) {
        differ.add(name + ":\n--- pinned\n" + pinned + "--- now\n" + r.out());
      }
    }
    assertThat(commands).isGreaterThan(20);
    assertThat(differ).as("help texts that differ from their pinned copies").isEmpty();
  }

  /** The pinned copy of command {@code name}'s help, or a line saying there is none. */
  private static String pinned(String name) throws IOException {
    try (InputStream in =
        HelpTextPinnedTest.class.getResourceAsStream("/help-text/" + name + ".txt")) {
      return in == null
          ? "(no pinned copy " + name + ".txt)\n"
          : new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }
}
