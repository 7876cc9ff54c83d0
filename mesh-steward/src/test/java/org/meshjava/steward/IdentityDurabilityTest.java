package org.meshjava.steward;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.InstantSource;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.core.ContentId;
import org.meshjava.core.CostProfile;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.energy.EstimatorMeter;
import org.meshjava.engine.ReferenceEngine;
import org.meshjava.jcp.GrantChain;
import org.meshjava.jcp.Jcp;
import org.meshjava.journal.FileJournal;
import org.meshjava.journal.InMemoryJournal;
import org.meshjava.receipt.ChainHead;

/**
 * A steward whose identity outlives the process honours grants only over a durable journal, and
 * never starts its receipt chain at 0 unless told to (§2.2, §6.3); an ephemeral identity is the
 * zero-configuration steward and needs neither. Regression: {@code Steward.builder(key)} with the
 * default in-memory journal honoured grants and started at sequence 0, so a restart with the same
 * key gave budgets back, let captured presentations spend again and forked the receipt chain.
 */
class IdentityDurabilityTest {
  @TempDir Path tmp;

  final SigningKey org = SigningKey.generate();
  final SigningKey caller = SigningKey.generate();

  private GrantChain chainTo(org.meshjava.core.identity.DidKey steward) throws Exception {
    GrantChain root =
        Jcp.issueRoot(
            org,
            Jcp.identity(caller),
            1_000_000,
            GrantFixture.NOW.minusSeconds(60),
            GrantFixture.NOW.plusSeconds(3600));
    return Jcp.delegate(caller, root, steward, 1_000_000);
  }

  private static Steward.Builder configure(Steward.Builder b) {
    return b.meter(new EstimatorMeter())
        .clock(InstantSource.fixed(GrantFixture.NOW))
        .backend(
            ReferenceEngine.builder()
                .name("ref")
                .costProfile(CostProfile.perToken(100))
                .workPerToken(1)
                .build());
  }

  private ServeResult granted(Steward s, GrantChain chain, String prompt) throws Exception {
    ServeRequest req = GrantFixture.request(prompt, 4, 100_000);
    return s.serve(req, GrantFixture.payload(req), Jcp.present(caller, chain, req));
  }

  private static ServeResult ungranted(Steward s, String prompt) throws Exception {
    ServeRequest req = GrantFixture.request(prompt, 4, 100_000);
    return s.serve(req, GrantFixture.payload(req));
  }

  @Test
  void keyWithAnInMemoryJournal_refusesEveryGrant_andServesUngranted() throws Exception {
    SigningKey key = SigningKey.generate();
    GrantChain chain = chainTo(Jcp.identity(key));
    try (Steward s = configure(Steward.builder(key)).chainHead(ChainHead.GENESIS).build()) {
      assertThat(s.grantsNeedDurableJournal()).get().asString().contains("not durable");

      assertThatThrownBy(() -> granted(s, chain, "granted"))
          .isInstanceOfSatisfying(
              ServeException.class,
              e -> assertThat(e.reason()).isEqualTo(ServeException.Reason.JOURNAL_NOT_DURABLE));
      assertThat(s.spend().remainingUj(chain))
          .as("nothing decided, nothing reserved")
          .isEqualTo(1_000_000);
      assertThat(s.head().nextSequence()).isZero();

      assertThat(ungranted(s, "ungranted").receipt().sequence()).isZero();
    }
  }

  @Test
  void keyWithAnExplicitInMemoryJournal_refusesGrantsToo() throws Exception {
    SigningKey key = SigningKey.generate();
    GrantChain chain = chainTo(Jcp.identity(key));
    try (Steward s =
        configure(Steward.builder(key))
            .journal(new InMemoryJournal())
            .chainHead(ChainHead.GENESIS)
            .build()) {
      assertThatThrownBy(() -> granted(s, chain, "granted"))
          .isInstanceOfSatisfying(
              ServeException.class,
              e -> assertThat(e.reason()).isEqualTo(ServeException.Reason.JOURNAL_NOT_DURABLE));
    }
  }

  @Test
  void keyWithAFileJournal_honoursGrants_andARestartKeepsSpendAndChain() throws Exception {
    SigningKey key = SigningKey.generate();
    GrantChain chain = chainTo(Jcp.identity(key));
    Path journal = tmp.resolve("steward.journal");
    long remaining;
    try (Steward s =
        configure(Steward.builder(key))
            .journal(FileJournal.open(journal))
            .chainHead(ChainHead.GENESIS)
            .build()) {
      assertThat(s.grantsNeedDurableJournal()).isEmpty();
      granted(s, chain, "first");
      remaining = s.spend().remainingUj(chain);
      assertThat(remaining).isLessThan(1_000_000);
    }
    // A restart needs no word from the operator: the journal says where the chain stands.
    try (Steward s = configure(Steward.builder(key)).journal(FileJournal.open(journal)).build()) {
      assertThat(s.spend().remainingUj(chain)).isEqualTo(remaining);
      assertThat(s.head().nextSequence()).isEqualTo(1);
      assertThat(granted(s, chain, "second").receipt().sequence()).isEqualTo(1);
    }
  }

  @Test
  void keyWhoseJournalRecordsNoReceipt_refusesToStart_unlessTheChainStartIsGiven()
      throws Exception {
    SigningKey key = SigningKey.generate();
    assertThatThrownBy(() -> configure(Steward.builder(key)).build())
        .isInstanceOfSatisfying(
            UnknownChainHeadException.class,
            e -> {
              assertThat(e.identity()).isEqualTo(Jcp.identity(key));
              // Regression: it read "journal in-memory journal records no receipt".
              assertThat(e.getMessage())
                  .contains("its journal (in-memory journal) records no receipt")
                  .contains("chainHead(GENESIS)", "--fresh-chain");
            });
    Path journal = tmp.resolve("new.journal");
    assertThatThrownBy(
            () -> configure(Steward.builder(key)).journal(FileJournal.open(journal)).build())
        .isInstanceOf(UnknownChainHeadException.class)
        .hasMessageContaining(journal.toString());
    // The refused steward released the journal: the operator can start it, saying where.
    try (Steward s =
        configure(Steward.builder(key))
            .journal(FileJournal.open(journal))
            .chainHead(ChainHead.GENESIS)
            .build()) {
      assertThat(ungranted(s, "first").receipt().sequence()).isZero();
    }
    // An operator who knows the head of an earlier chain continues it instead.
    ChainHead elsewhere = new ChainHead(41, Optional.of(ContentId.ofBytes(new byte[] {4, 1})));
    try (Steward s = configure(Steward.builder(key)).chainHead(elsewhere).build()) {
      assertThat(ungranted(s, "continued").receipt().sequence()).isEqualTo(41);
    }
  }

  @Test
  void ephemeralIdentity_withTheDefaultJournal_honoursGrants_fromGenesis() throws Exception {
    Steward.Builder b = configure(Steward.ephemeral());
    GrantChain chain = chainTo(b.identity());
    try (Steward s = b.build()) {
      assertThat(s.identity()).isEqualTo(b.identity());
      assertThat(s.grantsNeedDurableJournal()).isEmpty();
      ServeResult r = granted(s, chain, "zero config");
      assertThat(r.receipt().grantId()).contains(chain.leaf().id().contentId());
      assertThat(r.receipt().sequence()).isZero();
    }
  }

  @Test
  void ephemeralIdentity_buildsOneSteward_andHasNoEarlierChainToContinue() {
    Steward.Builder b = configure(Steward.ephemeral());
    b.build().close();
    assertThatIllegalStateException().isThrownBy(b::build);

    ChainHead elsewhere = new ChainHead(3, Optional.of(ContentId.ofBytes(new byte[] {3})));
    assertThatIllegalArgumentException()
        .isThrownBy(() -> configure(Steward.ephemeral()).chainHead(elsewhere).build());
    configure(Steward.ephemeral()).chainHead(ChainHead.GENESIS).build().close();
  }

  @Test
  void twoEphemeralStewards_haveTwoIdentities() {
    try (Steward a = configure(Steward.ephemeral()).build();
        Steward b = configure(Steward.ephemeral()).build()) {
      assertThat(a.identity()).isNotEqualTo(b.identity());
    }
  }
}
