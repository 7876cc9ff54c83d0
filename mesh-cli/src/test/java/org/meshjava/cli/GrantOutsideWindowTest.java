package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.meshjava.cli.MeshCommandTest.mesh;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.cli.MeshCommandTest.Run;

/**
 * Regression: {@code mesh grant present} (and {@code delegate}, {@code shard}) signed for a grant
 * file that had expired, or was not valid yet, without a word: the user learnt it only from the
 * steward's 403. The tools still sign (the steward's clock decides), and now say so on stderr,
 * naming the link, when, and what to do.
 */
class GrantOutsideWindowTest {
  @TempDir Path tmp;

  /** A grant from a new caller key to a new steward key, in the window given, in {@code name}. */
  private Path grant(String name, String notBefore, String expires) {
    Path caller = tmp.resolve("caller.key");
    if (!Files.exists(caller)) {
      mesh("key", "generate", "--out", caller.toString());
    }
    String steward =
        mesh("key", "generate", "--out", tmp.resolve(name + ".steward.key").toString())
            .out()
            .strip();
    Path out = tmp.resolve(name);
    Run r =
        mesh(
            "grant",
            "issue",
            "--issuer-key",
            caller.toString(),
            "--subject",
            steward,
            "--budget-uj",
            "5000",
            "--not-before",
            notBefore,
            "--expires",
            expires,
            "--out",
            out.toString());
    assertThat(r.code()).as(r.err()).isZero();
    return out;
  }

  private Run present(Path chain) throws Exception {
    Path body = tmp.resolve("body.json");
    Files.writeString(
        body,
        """
        {"model": "auto", "max_tokens": 16, "messages": [{"role": "user", "content": "hi"}],
         "metadata": {"fidelity_floor": "F1", "joule_ceiling_uj": "2000"}}
        """);
    return mesh(
        "grant",
        "present",
        "--caller-key",
        tmp.resolve("caller.key").toString(),
        "--chain",
        chain.toString(),
        "--body",
        body.toString(),
        "--out",
        tmp.resolve(chain.getFileName() + ".p").toString());
  }

  @Test
  void presentingAnExpiredGrant_signsButSaysItExpiredAndWhatToDo() throws Exception {
    Path chain = grant("expired.hex", "2025-01-01T00:00:00Z", "2025-06-01T00:00:00Z");
    Run r = present(chain);
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.err())
        .startsWith("warning: " + chain + ": link 0 (grant ")
        .contains(
            " expired at 2025-06-01T00:00:00Z: a steward refuses it (403 expired); have its"
                + " issuer issue a new grant");
    assertThat(r.out()).contains("wrote ");
  }

  @Test
  void presentingAGrantNotValidYet_saysFromWhen() throws Exception {
    Path chain = grant("later.hex", "2099-01-01T00:00:00Z", "2099-06-01T00:00:00Z");
    Run r = present(chain);
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.err())
        .contains(
            "is valid only from 2099-01-01T00:00:00Z: a steward refuses it before then"
                + " (403 not-yet-valid)");
  }

  @Test
  void aGrantInItsWindow_isPresentedWithoutAWarning() throws Exception {
    Path chain = grant("now.hex", "now", "PT1H");
    Run r = present(chain);
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.err()).isEmpty();
  }

  @Test
  void delegatingAnExpiredGrant_saysSoToo() throws Exception {
    Path chain = grant("old.hex", "2025-01-01T00:00:00Z", "2025-06-01T00:00:00Z");
    String holder =
        mesh("key", "generate", "--out", tmp.resolve("member.key").toString()).out().strip();
    Run r =
        mesh(
            "grant",
            "delegate",
            "--holder-key",
            tmp.resolve("old.hex.steward.key").toString(),
            "--chain",
            chain.toString(),
            "--subject",
            holder,
            "--budget-uj",
            "100",
            "--out",
            tmp.resolve("delegated.hex").toString());
    assertThat(r.err()).contains("link 0 (grant ").contains(" expired at 2025-06-01T00:00:00Z");
  }
}
