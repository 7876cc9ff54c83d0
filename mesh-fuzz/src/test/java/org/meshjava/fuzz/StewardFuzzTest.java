package org.meshjava.fuzz;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.time.InstantSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.core.ContentId;
import org.meshjava.core.CostProfile;
import org.meshjava.core.Fidelity;
import org.meshjava.core.NonceSource;
import org.meshjava.core.ServeBounds;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.TokenSequence;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.core.identity.DidKey;
import org.meshjava.energy.EstimatorMeter;
import org.meshjava.engine.ReferenceEngine;
import org.meshjava.jcp.GrantChain;
import org.meshjava.jcp.Jcp;
import org.meshjava.jcp.Presentation;
import org.meshjava.jcp.PresentationNonce;
import org.meshjava.journal.FileJournal;
import org.meshjava.receipt.ChainHead;
import org.meshjava.receipt.tlog.LogException;
import org.meshjava.receipt.tlog.NoteVerifierKey;
import org.meshjava.receipt.tlog.SignedNote;
import org.meshjava.steward.RevocationFile;
import org.meshjava.steward.RevocationFileException;
import org.meshjava.steward.ServeException;
import org.meshjava.steward.Steward;

/**
 * What an operator or a witness hands a running steward as text: a revocations file ({@code mesh
 * serve --revocations}) and a checkpoint carrying a witness's cosignature ({@code POST
 * /v1/mesh/checkpoint}). One steward, with one receipt served and its checkpoint signed, takes
 * every input; fixed keys and a fixed clock make the stored inputs valid for it.
 */
class StewardFuzzTest {
  static final Instant NOW = Instant.parse("2026-11-29T12:00:00Z");
  static final SigningKey ORG = FixedKey.of(1);
  static final SigningKey CALLER = FixedKey.of(2);
  static final SigningKey STEWARD = FixedKey.of(3);
  static final SigningKey WITNESS = FixedKey.of(4);
  static final NoteVerifierKey WITNESS_KEY =
      new NoteVerifierKey("witness.example/w", WITNESS.verificationKey());

  /** Only names the file in a refusal. */
  private static final Path FILE = Path.of("revocations.hex");

  @TempDir static Path dir;
  private static Steward steward;

  @BeforeAll
  static void start() throws Exception {
    steward = served(dir.resolve("journal"));
  }

  @AfterAll
  static void stop() throws Exception {
    steward.close();
  }

  @FuzzTest(maxDuration = "60s")
  void revocations(byte[] input) {
    String text = new String(input, StandardCharsets.UTF_8);
    Hostile.only(
        () -> RevocationFile.load(steward, FILE, text, loaded -> {}),
        RevocationFileException.class);
  }

  @FuzzTest(maxDuration = "60s")
  void cosignature(byte[] input) {
    String text = new String(input, StandardCharsets.UTF_8);
    Hostile.only(
        () -> steward.cosign(SignedNote.parse(text)), LogException.class, ServeException.class);
  }

  /** The grant the stored inputs revoke: the org's root to the caller, delegated to the steward. */
  static GrantChain chain() throws Exception {
    GrantChain root =
        Jcp.issueRoot(
            ORG, Jcp.identity(CALLER), 1_000_000, NOW.minusSeconds(60), NOW.plusSeconds(3600));
    return Jcp.delegate(CALLER, root, DidKey.of(STEWARD.verificationKey()), 1_000_000);
  }

  /**
   * A steward on a journal in {@code dir}, with one receipt served under {@link #chain()} and its
   * checkpoint signed: the same one on every run (fixed keys and clock).
   */
  static Steward served(Path journal) throws Exception {
    Steward s =
        Steward.builder(STEWARD)
            .meter(new EstimatorMeter())
            .clock(InstantSource.fixed(NOW))
            .nonces(NonceSource.fixed(new byte[NonceSource.LENGTH]))
            .journal(FileJournal.open(journal))
            .chainHead(ChainHead.GENESIS)
            .witness(WITNESS_KEY)
            .backend(
                ReferenceEngine.builder()
                    .name("ref")
                    .costProfile(CostProfile.perToken(100))
                    .workPerToken(1)
                    .build())
            .build();
    byte[] prompt = "0".getBytes(StandardCharsets.UTF_8);
    ServeRequest req =
        ServeRequest.generation(
            ContentId.ofBytes(prompt), prompt.length, new ServeBounds(4, Fidelity.F1, 10_000));
    Presentation presented =
        Presentation.sign(
            CALLER, chain(), req.id(), PresentationNonce.of(new byte[PresentationNonce.LENGTH]));
    s.serve(req, TokenSequence.of(new int[1]), presented);
    s.checkpoint().orElseThrow();
    return s;
  }
}
