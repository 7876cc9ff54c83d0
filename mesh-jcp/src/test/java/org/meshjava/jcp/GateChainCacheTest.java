package org.meshjava.jcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.meshjava.core.ContentId;
import org.meshjava.core.DenialLabel;
import org.meshjava.core.Fidelity;
import org.meshjava.core.ServeBounds;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.crypto.SigningKey;

class GateChainCacheTest {
  @Test
  void aVerifiedLeafBehindAForgedParent_isStillRefused() throws Exception {
    Instant now = Instant.parse("2026-11-29T12:00:00Z");
    SigningKey org = Jcp.newKey();
    SigningKey caller = Jcp.newKey();
    SigningKey steward = Jcp.newKey();
    GrantChain root =
        Jcp.issueRoot(
            org, Jcp.identity(caller), 1_000, now.minusSeconds(10), now.plusSeconds(3600));
    GrantChain chain = Jcp.delegate(caller, root, Jcp.identity(steward), 1_000);
    Gate gate = Gate.create(Jcp.identity(steward), SpendLedger.inMemory(), Revocations.none());
    ServeRequest r1 = request("one");
    gate.release(gate.decide(Jcp.present(caller, chain, r1), r1, Optional.empty(), now));
    // The same leaf, but behind a different (forged) root with a far larger budget.
    SigningKey forger = Jcp.newKey();
    GrantChain forgedRoot =
        Jcp.issueRoot(
            forger,
            Jcp.identity(caller),
            1_000_000_000,
            now.minusSeconds(10),
            now.plusSeconds(3600));
    GrantChain forged = new GrantChain(List.of(forgedRoot.root(), chain.leaf()));
    ServeRequest r2 = request("two");
    Presentation p = Presentation.sign(caller, forged, r2.id());
    assertThatThrownBy(() -> gate.decide(p, r2, Optional.empty(), now))
        .isInstanceOfSatisfying(
            GrantRefusedException.class,
            e -> assertThat(e.label()).isEqualTo(DenialLabel.BROKEN_CHAIN));
  }

  private static ServeRequest request(String s) {
    byte[] b = s.getBytes(StandardCharsets.UTF_8);
    return ServeRequest.generation(ContentId.ofBytes(b), 3, new ServeBounds(3, Fidelity.F0, 10));
  }
}
