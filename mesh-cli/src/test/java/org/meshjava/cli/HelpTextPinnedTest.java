package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.meshjava.journal.testing.ChildJava;
import picocli.CommandLine;

/**
 * The {@code --help} text of every command, byte for byte, against the copies under {@code
 * src/test/resources/help-text/} (one file a command, named by its words: {@code
 * mesh-journal-verify.txt}). It pins {@link HelpText}'s layout (wrapped at spaces only, picocli's
 * columns and indents) so that a change to how it is drawn, or a picocli upgrade, shows as a diff
 * of the text a user reads. After a deliberate change to a command's options or words, write the
 * copies again: {@code -Dtest=HelpTextPinnedTest
 * -Dmesh.helpText.write=<repo>/mesh-cli/src/test/resources/help-text}, then read the diff.
 *
 * <p>The copies are drawn 80 columns wide without ANSI styles, and the test sets both itself
 * ({@link #PINNED_UNDER}): picocli takes them from the {@code picocli.ansi} and {@code
 * picocli.usage.width} system properties, which a build's {@code -D} hands to the test JVM, and
 * styles the text where {@code CLICOLOR_FORCE} is set in the environment unless {@code
 * picocli.ansi} says otherwise; a terminal's width ({@code COLUMNS}) it is not asked for.
 */
class HelpTextPinnedTest {
  /** The settings the copies are drawn under, set for each run whatever the environment says. */
  static final Map<String, String> PINNED_UNDER =
      Map.of("picocli.ansi", "false", "picocli.usage.width", "80");

  /** The commands drawn and, for each that differs from its copy, both texts. */
  private record Drawn(int commands, List<String> differ) {}

  @Test
  void everyCommandsHelp_isTheTextPinned() throws IOException {
    Drawn drawn = drawEvery(System.getProperty("mesh.helpText.write"));
    assertThat(drawn.commands()).isGreaterThan(20);
    assertThat(drawn.differ()).as("help texts that differ from their pinned copies").isEmpty();
  }

  /**
   * Regression: the test drew the texts under whatever picocli found, so a build given {@code
   * -Dpicocli.usage.width=120} or {@code -Dpicocli.ansi=true}, or run where {@code CLICOLOR_FORCE}
   * is set, failed it on every command though no text had changed. A child JVM with all of them set
   * (and {@code COLUMNS}, and a colour terminal) runs the same drawing.
   */
  @Test
  void underAnyAnsiAndWidthSettings_theTextsAreThePinnedOnes() throws Exception {
    List<String> jvm = new ArrayList<>(ChildJava.QUICK);
    jvm.addAll(List.of("-Dpicocli.ansi=true", "-Dpicocli.usage.width=120"));
    ProcessBuilder pb =
        new ProcessBuilder(ChildJava.command(jvm, HelpTextPinnedTest.class))
            .redirectErrorStream(true);
    pb.environment().putAll(Map.of("CLICOLOR_FORCE", "1", "COLUMNS", "200", "TERM", "xterm"));
    pb.environment().remove("NO_COLOR");
    Process p = pb.start();
    String said = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(120, TimeUnit.SECONDS)).as(said).isTrue();
    assertThat(p.exitValue()).as(said).isZero();
    assertThat(said).containsPattern("drew \\d+ commands as pinned");
  }

  /** The child JVM of the test above: draws every text and exits 1 naming those that differ. */
  public static void main(String[] args) throws IOException {
    Drawn drawn = drawEvery(null);
    if (!drawn.differ().isEmpty()) {
      System.out.println(String.join("\n", drawn.differ()));
      System.exit(1);
    }
    System.out.println("drew " + drawn.commands() + " commands as pinned");
  }

  /**
   * Draws every command's {@code --help} under {@link #PINNED_UNDER}, the system properties put
   * back after, and compares each with its copy; or writes the copies to {@code writeTo}.
   */
  private static Drawn drawEvery(@Nullable String writeTo) throws IOException {
    Map<String, @Nullable String> before = new HashMap<>();
    PINNED_UNDER.forEach((name, value) -> before.put(name, System.setProperty(name, value)));
    try {
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
      return new Drawn(commands, differ);
    } finally {
      before.forEach(
          (name, value) -> {
            if (value == null) {
              System.clearProperty(name);
            } else {
              System.setProperty(name, value);
            }
          });
    }
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
