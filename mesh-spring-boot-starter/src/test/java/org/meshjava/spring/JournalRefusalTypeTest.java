package org.meshjava.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.core.Fidelity;
import org.meshjava.core.PromptText;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.journal.JournalException;
import org.meshjava.steward.Steward;
import org.meshjava.steward.StewardStartException;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * A damaged journal fails the start with one type whichever point finds the damage: opening the
 * file (its last line) or replaying it (a record in its middle). Both are a {@link
 * StewardStartException} naming {@code mesh.journal} and carrying the journal's reason.
 */
class JournalRefusalTypeTest {
  @TempDir Path dir;

  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(AutoConfigurations.of(MeshAutoConfiguration.class))
          .withPropertyValues("mesh.meter=estimator", "mesh.backends[0].name=small");

  private Path journal() {
    return dir.resolve("steward.journal");
  }

  /** Two serves journalled under a key file, the application then stopped. */
  private String[] journalWithTwoServes() throws Exception {
    Path key = dir.resolve("steward.key");
    Files.writeString(
        key,
        HexFormat.of().formatHex(SigningKey.generate().exportSeed()) + "\n",
        StandardCharsets.US_ASCII);
    String[] props = {"mesh.journal=" + journal(), "mesh.key-file=" + key};
    runner
        .withPropertyValues(props)
        .withPropertyValues("mesh.fresh-chain=true")
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              for (int i = 0; i < 2; i++) {
                PromptText prompt = PromptText.of("journalled " + i);
                context
                    .getBean(Steward.class)
                    .serve(ServeRequest.generation(prompt, 4, Fidelity.F0, 1_000_000), prompt);
              }
            });
    return props;
  }

  private static StewardStartException startRefusal(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof StewardStartException s) {
        return s;
      }
    }
    throw new AssertionError("no StewardStartException among the causes", failure);
  }

  private void assertRefusedAsCorrupt(String[] props) {
    runner
        .withPropertyValues(props)
        .run(
            context -> {
              StewardStartException e = startRefusal(context.getStartupFailure());
              assertThat(e.reason()).isEqualTo(JournalException.Reason.CORRUPT);
              assertThat(e.getMessage())
                  .startsWith("mesh.journal: ")
                  .contains(journal().toString());
              assertThat(e.journalException()).isPresent();
            });
  }

  /** Regression: refused at open, the start failed with an IllegalStateException instead. */
  @Test
  void anEmptyLastLine_foundAtOpen_isAStewardStartExceptionNamingMeshJournal() throws Exception {
    String[] props = journalWithTwoServes();
    // An editor's newline at the end: refused by the opening, which reads the last line.
    Files.writeString(journal(), "\n", StandardOpenOption.APPEND);
    assertRefusedAsCorrupt(props);
  }

  /** Regression: refused at replay, the start's message did not name mesh.journal. */
  @Test
  void aDamagedMiddleRecord_foundAtReplay_isTheSameTypeNamingMeshJournal() throws Exception {
    String[] props = journalWithTwoServes();
    List<String> lines = new ArrayList<>(Files.readAllLines(journal()));
    assertThat(lines).hasSizeGreaterThan(2);
    String middle = lines.get(1);
    int at = middle.indexOf("\"prev\":\"") + "\"prev\":\"".length();
    char c = middle.charAt(at);
    lines.set(1, middle.substring(0, at) + (c == 'a' ? 'b' : 'a') + middle.substring(at + 1));
    Files.writeString(journal(), String.join("\n", lines) + "\n");
    assertRefusedAsCorrupt(props);
  }
}
