package org.meshjava.steward;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.meshjava.core.ServeRequest;
import org.meshjava.jcp.GrantChain;
import org.meshjava.jcp.GrantId;
import org.meshjava.jcp.Revocation;

/**
 * The read-only spend view ({@link Steward#spend()}): whose spend it is, what a link has debited
 * and reserved, what a chain has left, and from when a grant is revoked, each read live.
 */
class GrantSpendViewTest {
  private final GrantFixture f = new GrantFixture();

  @Test
  void holder_isTheStewardItself_theSubjectAGrantsLeafMustName() throws Exception {
    try (Steward s = f.steward(new DurableMemoryJournal()).build()) {
      assertThat(s.spend().holder()).isEqualTo(s.identity()).isEqualTo(f.steward);
    }
  }

  @Test
  void aLinkNeverSeen_hasSpentNothing_andItsChainHasItsWholeBudgetLeft() throws Exception {
    GrantChain chain = f.chain(1_000_000);
    try (Steward s = f.steward(new DurableMemoryJournal()).build()) {
      for (GrantId link : chain.ids()) {
        assertThat(s.spend().spend(link).debitedUj()).isZero();
        assertThat(s.spend().spend(link).reservedUj()).isZero();
        assertThat(s.spend().revokedFrom(link)).isEmpty();
      }
      assertThat(s.spend().remainingUj(chain)).isEqualTo(1_000_000);
    }
  }

  @Test
  void theViewIsLive_aServesDebitAndARevocationShowInTheSameView() throws Exception {
    GrantChain chain = f.chain(1_000_000);
    try (Steward s = f.steward(new DurableMemoryJournal()).build()) {
      GrantSpend view = s.spend();
      ServeRequest req = GrantFixture.request("hello", 10, 100_000);
      ServeResult r = s.serve(req, GrantFixture.payload(req), f.present(chain, req));
      long metered = r.receipt().energy().uj();
      assertThat(view.spend(chain.leaf().id()).debitedUj()).isEqualTo(metered);
      assertThat(view.remainingUj(chain)).isEqualTo(1_000_000 - metered);

      assertThat(s.revoke(Revocation.sign(f.org, chain, GrantFixture.NOW))).isTrue();
      assertThat(view.revokedFrom(chain.leaf().id())).contains(GrantFixture.NOW);
      assertThat(view.revocations()).containsKey(chain.leaf().id());
    }
  }
}
