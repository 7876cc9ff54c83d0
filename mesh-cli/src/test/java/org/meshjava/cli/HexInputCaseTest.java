package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.meshjava.cli.MeshCommandTest.mesh;
import static org.meshjava.cli.MeshCommandTest.published;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.cli.MeshCommandTest.Run;

/**
 * Every hex text a command is given, in a file or an argument, is read by one rule: lowercase
 * (SPEC.md "Conventions"). Upper case is refused alike everywhere, the refusal saying "not
 * lowercase hex" and where.
 *
 * <p>Regression: key files and envelope files were read in either case, while grant chains,
 * revocations and ids refused upper case, so which input took which was a guess.
 */
class HexInputCaseTest {
  @TempDir Path tmp;

  private static final String UPPER = "not lowercase hex: upper-case '";

  /** The BLAKE3 of nothing, in upper case. */
  private static final String ID_UPPER =
      "AF1349B9F5F9A1A6A0404DEA36DCC9499BCB25C9ADC112B7CC9A93CAE41F3262";

  private static void assertRefusedAsUpperCase(Run r, String command) {
    assertThat(r.code()).as(r.err()).isEqualTo(1);
    assertThat(r.err()).startsWith(command + ": ").contains(UPPER);
    assertThat(r.err().strip().lines()).as(r.err()).hasSize(1);
  }

  private static String upper(String hex) {
    return hex.toUpperCase(Locale.ROOT);
  }

  @Test
  void aKeyFileInUpperCase_isRefused() throws Exception {
    Path key = Files.writeString(tmp.resolve("k.key"), "AB".repeat(32) + "\n");
    assertRefusedAsUpperCase(mesh("key", "show", "--key", key.toString()), "mesh key show");
  }

  @Test
  void anEnvelopeInUpperCase_isRefused_byVerifyAndByProve() throws Exception {
    String good = Files.readString(published("reference/envelope.hex")).strip();
    Path f = Files.writeString(tmp.resolve("e.hex"), upper(good) + "\n");
    assertRefusedAsUpperCase(mesh("verify", "--from-genesis", f.toString()), "mesh verify");
    // Read before anything is asked of the server, which is not there.
    assertRefusedAsUpperCase(
        mesh("log", "prove", "--server", "http://127.0.0.1:1", "--envelope", f.toString()),
        "mesh log prove");
  }

  @Test
  void anEnvelopeIdInUpperCase_isRefused() {
    assertRefusedAsUpperCase(
        mesh("log", "prove", "--server", "http://127.0.0.1:1", "--envelope-id", ID_UPPER),
        "mesh log prove");
  }

  /** {@code mesh grant issue} of a root grant by {@code key} to itself, with {@code more}. */
  private static Run issueToSelf(Path key, Path out, String... more) {
    String did = mesh("key", "show", "--key", key.toString()).out().strip();
    List<String> args = new ArrayList<>();
    args.addAll(List.of("grant", "issue", "--issuer-key", key.toString(), "--subject", did));
    args.addAll(List.of("--out", out.toString(), "--budget-uj", "1000", "--expires", "PT1H"));
    args.addAll(List.of(more));
    return mesh(args.toArray(String[]::new));
  }

  @Test
  void aChainInUpperCase_isRefused_asAModelDigestIs() throws Exception {
    Path key = tmp.resolve("c.key");
    assertThat(mesh("key", "generate", "--out", key.toString()).code()).isZero();
    Path chain = tmp.resolve("chain.hex");
    Run issued = issueToSelf(key, chain);
    assertThat(issued.code()).as(issued.err()).isZero();
    assertThat(mesh("grant", "show", "--chain", chain.toString()).code()).isZero();
    Files.writeString(chain, upper(Files.readString(chain)));
    assertRefusedAsUpperCase(mesh("grant", "show", "--chain", chain.toString()), "mesh grant show");

    Run model = issueToSelf(key, tmp.resolve("m.hex"), "--model-in", ID_UPPER);
    assertRefusedAsUpperCase(model, "mesh grant issue");
  }
}
