package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.meshjava.cli.MeshCommandTest.mesh;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.cli.MeshCommandTest.Run;

/**
 * Regression: every grant tool and {@code mesh log checkpoint|prove -o} replaced an existing output
 * file without a word, so a repeated command lost a grant, a revocation or the older checkpoint a
 * consistency proof is checked against. Each now refuses a file that exists, naming it and leaving
 * it as it was, unless {@code --force}, as {@code mesh key generate} already did.
 */
class OutputOverwriteTest {
  @TempDir Path tmp;

  private Path key;
  private String did;
  private Path chain;

  @BeforeEach
  void issue() {
    key = tmp.resolve("c.key");
    did = mesh("key", "generate", "--out", key.toString()).out().strip();
    chain = tmp.resolve("grant.hex");
    Run issued = mesh(issue(chain));
    assertThat(issued.code()).as(issued.err()).isZero();
  }

  private String[] issue(Path out, String... more) {
    return issue(out, 1000, more);
  }

  private String[] issue(Path out, long budgetUj, String... more) {
    List<String> args =
        new ArrayList<>(
            List.of(
                "grant",
                "issue",
                "--issuer-key",
                key.toString(),
                "--subject",
                did,
                "--budget-uj",
                Long.toString(budgetUj),
                "--expires",
                "PT1H",
                "--out",
                out.toString()));
    args.addAll(List.of(more));
    return args.toArray(String[]::new);
  }

  /** The command refused, naming the file, and left every byte of it as it was. */
  private static void assertRefused(Run r, Path file, byte[] before) throws Exception {
    assertThat(r.code()).as(r.err()).isEqualTo(1);
    assertThat(r.err()).contains(file + " exists; refusing to overwrite").contains("--force");
    assertThat(r.out()).isEmpty();
    assertThat(Files.readAllBytes(file)).isEqualTo(before);
  }

  @Test
  void grantIssue_ontoAnExistingFile_isRefused_andWithForceReplacesIt() throws Exception {
    byte[] before = Files.readAllBytes(chain);
    assertRefused(mesh(issue(chain)), chain, before);
    Run forced = mesh(issue(chain, 2000, "--force"));
    assertThat(forced.code()).as(forced.err()).isZero();
    assertThat(Files.readAllBytes(chain)).isNotEqualTo(before);
    // A file written anew leaves nothing beside it (it is written whole, then renamed).
    try (var files = Files.list(tmp)) {
      assertThat(files.map(p -> p.getFileName().toString())).containsOnly("c.key", "grant.hex");
    }
  }

  @Test
  void grantDelegateAndRevoke_ontoAnExistingFile_areRefused() throws Exception {
    Path taken = Files.writeString(tmp.resolve("taken.hex"), "kept\n");
    byte[] before = Files.readAllBytes(taken);
    assertRefused(
        mesh(
            "grant",
            "delegate",
            "--holder-key",
            key.toString(),
            "--chain",
            chain.toString(),
            "--subject",
            did,
            "--budget-uj",
            "10",
            "--out",
            taken.toString()),
        taken,
        before);
    assertRefused(
        mesh(
            "grant",
            "revoke",
            "--issuer-key",
            key.toString(),
            "--chain",
            chain.toString(),
            "--out",
            taken.toString()),
        taken,
        before);
    Run forced =
        mesh(
            "grant",
            "revoke",
            "--issuer-key",
            key.toString(),
            "--chain",
            chain.toString(),
            "--out",
            taken.toString(),
            "--force");
    assertThat(forced.code()).as(forced.err()).isZero();
  }

  @Test
  void grantShard_withOneShardFileTaken_writesNone() throws Exception {
    Path dir = Files.createDirectories(tmp.resolve("shards"));
    Path second = Files.writeString(dir.resolve("shard-2.hex"), "kept\n");
    byte[] before = Files.readAllBytes(second);
    Path other = tmp.resolve("other.key");
    String otherDid = mesh("key", "generate", "--out", other.toString()).out().strip();
    Run r =
        mesh(
            "grant",
            "shard",
            "--holder-key",
            key.toString(),
            "--chain",
            chain.toString(),
            "--share",
            did + "=100",
            "--share",
            otherDid + "=200",
            "--out-dir",
            dir.toString());
    assertRefused(r, second, before);
    assertThat(dir.resolve("shard-1.hex")).doesNotExist();
  }

  @Test
  void grantPresent_withOutBodyTaken_writesNeitherFile() throws Exception {
    Path body =
        Files.writeString(
            tmp.resolve("body.json"),
            """
            {"model": "small", "max_tokens": 8,
             "messages": [{"role": "user", "content": "Hello."}],
             "metadata": {"fidelity_floor": "F1", "joule_ceiling_uj": "100000"}}""");
    Path out = tmp.resolve("p.hex");
    Path outBody = Files.writeString(tmp.resolve("signed.json"), "kept");
    byte[] before = Files.readAllBytes(outBody);
    Run r =
        mesh(
            "grant",
            "present",
            "--caller-key",
            key.toString(),
            "--chain",
            chain.toString(),
            "--body",
            body.toString(),
            "--out",
            out.toString(),
            "--out-body",
            outBody.toString());
    assertRefused(r, outBody, before);
    assertThat(out).doesNotExist();
  }

  @Test
  void logCheckpointAndProve_ontoAnExistingFile_areRefusedBeforeAskingTheServer() throws Exception {
    Path saved = Files.writeString(tmp.resolve("old.checkpoint"), "an older checkpoint\n");
    byte[] before = Files.readAllBytes(saved);
    // No server listens on port 1: a refusal that names the file came before any request.
    assertRefused(
        mesh("log", "checkpoint", "--server", "127.0.0.1:1", "-o", saved.toString()),
        saved,
        before);
    assertRefused(
        mesh("log", "prove", "--server", "127.0.0.1:1", "--seq", "0", "--out", saved.toString()),
        saved,
        before);
    Run forced =
        mesh("log", "checkpoint", "--server", "127.0.0.1:1", "-o", saved.toString(), "--force");
    assertThat(forced.code()).isEqualTo(1);
    assertThat(forced.err()).contains("connection refused").doesNotContain("exists");
  }
}
