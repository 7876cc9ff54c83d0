package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.meshjava.cli.MeshCommandTest.mesh;
import static org.meshjava.cli.MeshCommandTest.meshWithInput;
import static org.meshjava.cli.MeshCommandTest.published;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.cli.MeshCommandTest.Run;

/**
 * Regression: {@code mesh verify -} looked for a file named {@code -} ("cannot read envelope file
 * -: no such file"), so envelopes could not be piped in as to other Unix tools. {@code -} now reads
 * standard input wherever a command reads receipts, grants, request bodies, checkpoints or proofs;
 * one command reads it once, and a journal is never read from it.
 */
class StandardInputTest {
  @TempDir Path tmp;

  private static byte[] envelopes() throws Exception {
    return Files.readAllBytes(published("reference/envelope.hex"));
  }

  @Test
  void verify_dash_readsTheEnvelopesFromStandardInput() throws Exception {
    Run fromFile = mesh("verify", "--from-genesis", published("reference/envelope.hex").toString());
    Run piped = meshWithInput(envelopes(), "verify", "--from-genesis", "-");
    assertThat(piped.code()).as(piped.err()).isZero();
    assertThat(piped.out()).isEqualTo(fromFile.out()).contains("verified 1 receipt,");
  }

  @Test
  void verify_dash_namesStandardInputInItsRefusals() {
    Run empty = meshWithInput(new byte[0], "verify", "-");
    assertThat(empty.code()).isEqualTo(1);
    assertThat(empty.err()).contains("standard input holds no envelopes");
    Run notHex = meshWithInput("zz\n".getBytes(StandardCharsets.UTF_8), "verify", "-");
    assertThat(notHex.code()).isEqualTo(1);
    assertThat(notHex.err())
        .contains("standard input")
        .contains("is not lowercase hex: 'z' at index 0");
  }

  @Test
  void dashTwice_isRefused_ratherThanReadAsEmpty() throws Exception {
    Run twice = meshWithInput(envelopes(), "verify", "-", "-");
    assertThat(twice.code()).isEqualTo(1);
    assertThat(twice.err()).contains("standard input is named by more than one input");
    assertThat(twice.out()).isEmpty();
  }

  @Test
  void aFileNamedDash_isStillReachedAsDotSlashDash() throws Exception {
    Path dir = Files.createDirectories(tmp.resolve("d"));
    Files.write(dir.resolve("-"), envelopes());
    Run named = mesh("verify", dir.resolve("-").toString());
    assertThat(named.code()).as(named.err()).isZero();
  }

  /** A root grant issued with {@code key} to {@code did}, written to a file in {@link #tmp}. */
  private Path issuedTo(Path key, String did) {
    Path chain = tmp.resolve("grant.hex");
    Run issued =
        mesh(
            "grant",
            "issue",
            "--issuer-key",
            key.toString(),
            "--subject",
            did,
            "--budget-uj",
            "100000",
            "--expires",
            "PT1H",
            "--out",
            chain.toString());
    assertThat(issued.code()).as(issued.err()).isZero();
    return chain;
  }

  @Test
  void grantTools_readTheChainAndTheBodyFromStandardInput() throws Exception {
    Path key = tmp.resolve("c.key");
    String did = mesh("key", "generate", "--out", key.toString()).out().strip();
    Path chain = issuedTo(key, did);
    byte[] chainBytes = Files.readAllBytes(chain);

    Run shown = meshWithInput(chainBytes, "grant", "show", "--chain", "-");
    assertThat(shown.code()).as(shown.err()).isZero();
    assertThat(shown.out()).isEqualTo(mesh("grant", "show", "--chain", chain.toString()).out());

    Path child = tmp.resolve("child.hex");
    Run delegated =
        meshWithInput(
            chainBytes,
            "grant",
            "delegate",
            "--holder-key",
            key.toString(),
            "--chain",
            "-",
            "--subject",
            did,
            "--budget-uj",
            "10",
            "--out",
            child.toString());
    assertThat(delegated.code()).as(delegated.err()).isZero();
    assertThat(mesh("grant", "show", "--chain", child.toString()).out()).contains("link 1:");

    byte[] body =
        """
        {"model": "small", "max_tokens": 8,
         "messages": [{"role": "user", "content": "Hello."}],
         "metadata": {"fidelity_floor": "F1", "joule_ceiling_uj": "50000"}}"""
            .getBytes(StandardCharsets.UTF_8);
    Path granted = tmp.resolve("granted.json");
    Run presented =
        meshWithInput(
            body,
            "grant",
            "present",
            "--caller-key",
            key.toString(),
            "--chain",
            chain.toString(),
            "--body",
            "-",
            "--out",
            tmp.resolve("p.hex").toString(),
            "--out-body",
            granted.toString());
    assertThat(presented.code()).as(presented.err()).isZero();
    assertThat(Files.readString(granted)).contains("\"jcp_presentation\"").contains("Hello.");
  }

  /**
   * Regression: with the chain piped in, {@code grant present --chain - --body -} read the body
   * first, so the chain's hex was parsed as the body and the refusal said "the body is not valid
   * JSON" instead of naming the second {@code -}. A command line that names standard input twice is
   * now refused before either input reads it, whichever is read first.
   */
  @Test
  void dashTwice_isRefusedBeforeEitherInputReads_evenWhenTheFirstReadWouldHaveFailed()
      throws Exception {
    Path key = tmp.resolve("c.key");
    String did = mesh("key", "generate", "--out", key.toString()).out().strip();
    Path chain = issuedTo(key, did);
    // Whichever input the piped bytes were meant for: the chain (which the body, read first, would
    // have taken) or the body.
    for (byte[] piped : List.of(Files.readAllBytes(chain), "{}".getBytes(StandardCharsets.UTF_8))) {
      Run both =
          meshWithInput(
              piped,
              "grant",
              "present",
              "--caller-key",
              key.toString(),
              "--chain",
              "-",
              "--body",
              "-",
              "--out",
              tmp.resolve("q.hex").toString());
      assertThat(both.code()).isEqualTo(1);
      assertThat(both.err())
          .contains("standard input is named by more than one input")
          .doesNotContain("not valid JSON");
      assertThat(tmp.resolve("q.hex")).doesNotExist();
    }
  }

  /**
   * Regression: a key, a file to write or a configuration named {@code -} was taken as a file
   * called {@code -} in the current folder: {@code mesh key generate --out -} wrote a key there
   * where the user meant standard output. {@code -} is refused wherever only a file is taken.
   */
  @Test
  void dash_whereOnlyAFileIsTaken_isRefused_andNoFileCalledDashAppears() {
    String[][] commands = {
      {"key", "generate", "--out", "-"},
      {"key", "show", "--key", "-"},
      {"journal", "archive", "-"},
      {"log", "checkpoint", "--server", "127.0.0.1:1", "-o", "-"},
      {"serve", "--config", "-"}
    };
    for (String[] args : commands) {
      Run r = meshWithInput(new byte[0], args);
      String what = String.join(" ", args);
      assertThat(r.code()).as(what).isEqualTo(2);
      assertThat(r.err()).as(what).contains("'-' (standard input or output) is not taken here");
    }
    assertThat(Path.of("-")).doesNotExist();
  }

  @Test
  void journalCommands_refuseDash_ratherThanMakeAJournalFileOfThatName() {
    for (String sub : new String[] {"verify", "inspect"}) {
      Run r = meshWithInput(new byte[0], "journal", sub, "-");
      assertThat(r.code()).as(sub).isEqualTo(1);
      assertThat(r.err()).as(sub).contains("not standard input");
    }
    assertThat(Path.of("-")).doesNotExist();
  }
}
