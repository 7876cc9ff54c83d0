package org.meshjava.steward;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.core.DenialLabel;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.jcp.GrantChain;
import org.meshjava.jcp.GrantRefusedException;
import org.meshjava.jcp.Presentation;
import org.meshjava.jcp.Revocation;
import org.meshjava.journal.FileJournal;
import org.meshjava.journal.JournalEntry;
import org.meshjava.journal.JournalRecord;
import org.meshjava.journal.internal.JournalFile;
import org.meshjava.steward.observe.ServeObserver;
import org.meshjava.steward.observe.ServePhase;
import org.meshjava.steward.observe.ServeStarted;
import org.meshjava.steward.observe.StewardListener;

/**
 * Revocations are issuers' signed statements (issue 13 item 4): verified, journalled before they
 * take effect, replayed after a restart; a forged one and one by a party that issued no link of the
 * chain change nothing.
 */
class RevocationTest {
  final GrantFixture f = new GrantFixture();
  @TempDir Path dir;

  Path journal() {
    return dir.resolve("steward.journal");
  }

  @Test
  void revocationByTheRootIssuer_refusesLaterPresentations_andSurvivesARestart() throws Exception {
    GrantChain chain = f.chain(1_000_000);
    ServeRequest before = GrantFixture.request("before the revocation", 4, 10_000);
    Presentation beforeP = f.present(chain, before);
    try (Steward s = f.steward(FileJournal.open(journal())).build()) {
      s.serve(before, GrantFixture.payload(before), beforeP);
      // The org revokes the caller's grant (link 0): every chain through it falls.
      Revocation r =
          Revocation.sign(f.org, new GrantChain(chain.links().subList(0, 1)), GrantFixture.NOW);
      assertThat(s.revoke(r)).isTrue();
      assertThat(s.revoke(r)).as("the same revocation again changes nothing").isFalse();
      assertRevoked(s, chain, "after the revocation");
    }
    List<JournalRecord> records = JournalFile.read(journal()).records();
    assertThat(records).filteredOn(x -> x.entry() instanceof JournalEntry.Revoked).hasSize(1);
    // The decision recorded before the revocation replays as it was decided; later ones are
    // refused.
    try (Steward s = f.steward(FileJournal.open(journal())).build()) {
      assertRevoked(s, chain, "after the restart");
    }
  }

  /**
   * The chain's checks that read no state pass before the serve takes its slot; a revocation
   * recorded after them (here, as the serve enters its authorise phase) still refuses the serve,
   * since revocation is decided only under the journal's lock, at the decision's time. Nothing is
   * spent and nothing is journalled for it.
   */
  @Test
  void aRevocationRecordedAfterTheEarlyChecksPassed_stillRefusesTheServe() throws Exception {
    GrantChain chain = f.chain(1_000_000);
    ServeRequest req = GrantFixture.request("revoked on the way in", 4, 10_000);
    Revocation revocation = Revocation.sign(f.org, chain, GrantFixture.NOW);
    AtomicReference<Steward> steward = new AtomicReference<>();
    AtomicBoolean revoked = new AtomicBoolean();
    StewardListener revokeOnTheWayIn =
        new StewardListener() {
          @Override
          public ServeObserver serveStarted(ServeStarted serve) {
            return new ServeObserver() {
              @Override
              public void phase(ServePhase phase) {
                if (phase == ServePhase.AUTHORISE) {
                  try {
                    revoked.set(steward.get().revoke(revocation));
                  } catch (ServeException | GrantRefusedException e) {
                    throw new IllegalStateException(e);
                  }
                }
              }
            };
          }
        };
    DurableMemoryJournal journal = new DurableMemoryJournal();
    try (Steward s = f.steward(journal).listener(revokeOnTheWayIn).build()) {
      steward.set(s);
      assertThatThrownBy(() -> s.serve(req, GrantFixture.payload(req), f.present(chain, req)))
          .isInstanceOfSatisfying(
              GrantDeniedException.class,
              e -> assertThat(e.label()).isEqualTo(DenialLabel.REVOKED));
      assertThat(revoked).as("the revocation was recorded on the serve's way in").isTrue();
      assertThat(s.spend().remainingUj(chain)).isEqualTo(1_000_000);
    }
    assertThat(journal.records())
        .anyMatch(r -> r.entry() instanceof JournalEntry.Revoked)
        .noneMatch(r -> r.entry() instanceof JournalEntry.Authorised);
  }

  @Test
  void revocationOfTheLeafByItsIssuer_isHonoured() throws Exception {
    GrantChain chain = f.chain(1_000_000);
    try (Steward s = f.steward(FileJournal.open(journal())).build()) {
      s.revoke(Revocation.sign(f.caller, chain, GrantFixture.NOW.minusSeconds(10)));
      assertRevoked(s, chain, "leaf revoked");
    }
  }

  @Test
  void forgedRevocation_isRefused_andChangesNothing() throws Exception {
    GrantChain chain = f.chain(1_000_000);
    assertRefusedAndNothingChanges(chain, f.forgedRevocation(chain), DenialLabel.BAD_SIGNATURE);
  }

  @Test
  void revocationByAPartyThatIssuedNoLink_isRefused_andChangesNothing() throws Exception {
    GrantChain chain = f.chain(1_000_000);
    SigningKey stranger = SigningKey.generate();
    Revocation byStranger =
        Revocation.of(
            chain,
            org.meshjava.jcp.Jcp.identity(stranger),
            GrantFixture.NOW,
            stranger.sign(
                Revocation.signedPayload(
                    chain.leaf().id(), org.meshjava.jcp.Jcp.identity(stranger), GrantFixture.NOW)));
    assertRefusedAndNothingChanges(chain, byStranger, DenialLabel.NOT_ISSUER);
  }

  @Test
  void theCallerCannotRevokeTheLinkAboveItsOwn() throws Exception {
    GrantChain chain = f.chain(1_000_000);
    GrantChain rootOnly = new GrantChain(chain.links().subList(0, 1));
    assertThatThrownBy(() -> Revocation.sign(f.caller, rootOnly, GrantFixture.NOW))
        .isInstanceOf(org.meshjava.jcp.IssuanceException.class);
    Revocation attempt =
        Revocation.of(
            rootOnly,
            org.meshjava.jcp.Jcp.identity(f.caller),
            GrantFixture.NOW,
            f.caller.sign(
                Revocation.signedPayload(
                    rootOnly.leaf().id(),
                    org.meshjava.jcp.Jcp.identity(f.caller),
                    GrantFixture.NOW)));
    assertRefusedAndNothingChanges(chain, attempt, DenialLabel.NOT_ISSUER);
  }

  @Test
  void aDecisionBeforeTheRevocationTime_stands() throws Exception {
    GrantChain chain = f.chain(1_000_000);
    try (Steward s = f.steward(FileJournal.open(journal())).build()) {
      s.revoke(Revocation.sign(f.org, chain, GrantFixture.NOW.plusSeconds(60)));
      ServeRequest req = GrantFixture.request("still before", 4, 10_000);
      assertThat(s.serve(req, GrantFixture.payload(req), f.present(chain, req)).receipt().grantId())
          .contains(chain.leaf().id().contentId());
    }
  }

  private void assertRefusedAndNothingChanges(GrantChain chain, Revocation r, DenialLabel label)
      throws Exception {
    try (Steward s = f.steward(FileJournal.open(journal())).build()) {
      assertThatThrownBy(() -> s.revoke(r))
          .isInstanceOfSatisfying(
              GrantRefusedException.class, e -> assertThat(e.label()).isEqualTo(label));
      ServeRequest req = GrantFixture.request("still granted", 4, 10_000);
      s.serve(req, GrantFixture.payload(req), f.present(chain, req));
    }
    assertThat(JournalFile.read(journal()).records())
        .noneMatch(x -> x.entry() instanceof JournalEntry.Revoked);
  }

  private void assertRevoked(Steward s, GrantChain chain, String prompt) throws Exception {
    ServeRequest req = GrantFixture.request(prompt, 4, 10_000);
    assertThatThrownBy(() -> s.serve(req, GrantFixture.payload(req), f.present(chain, req)))
        .isInstanceOfSatisfying(
            GrantDeniedException.class, e -> assertThat(e.label()).isEqualTo(DenialLabel.REVOKED));
  }
}
