package org.meshjava.steward;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.meshjava.core.ContentId;
import org.meshjava.core.Energy;
import org.meshjava.core.EnergyDomain;
import org.meshjava.core.Fidelity;
import org.meshjava.core.ForwardingEngine;
import org.meshjava.core.Provenance;
import org.meshjava.core.ServeBounds;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.ServingEngine;
import org.meshjava.core.TokenSequence;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.energy.EnergyMeter;
import org.meshjava.energy.MeterWindow;
import org.meshjava.receipt.ChainHead;
import org.meshjava.receipt.Jcr1;
import org.meshjava.receipt.MeshReceipt;

/**
 * §3.3: a figure from a counter that does not cover the whole request, such as a GPU counter on a
 * host whose CPU has none, is never a hardware reading. The serve runs on this host whatever it
 * drives, so a backend that declares a GPU and no CPU package, or packages other than all those
 * this process may run on, has its window cover the packages this process may run on as well.
 */
class GpuDeclarationCoverageTest {
  private static final SigningKey KEY = SigningKey.fromSeed(new byte[32]);
  private static final TokenSequence PROMPT = TokenSequence.of(11, 22, 33, 44);
  private static final EnergyDomain GPU0 = EnergyDomain.gpu(0);
  private static final Set<EnergyDomain> HOST = EnergyDomain.cpuPackagesOfThisProcess();

  /**
   * Grades as the counter meter does: a reading only where it has a live counter on every domain
   * the window covers, the estimate otherwise. Notes the domains each window was opened on.
   */
  private static final class CoverageMeter implements EnergyMeter {
    final Set<EnergyDomain> live;
    final List<Set<EnergyDomain>> opened = Collections.synchronizedList(new ArrayList<>());

    CoverageMeter(Set<EnergyDomain> live) {
      this.live = Set.copyOf(live);
    }

    @Override
    public String name() {
      return "coverage";
    }

    @Override
    public MeterWindow open(Set<EnergyDomain> domains) {
      opened.add(Set.copyOf(domains));
      boolean covered = !domains.isEmpty() && live.containsAll(domains);
      return new MeterWindow() {
        @Override
        public Energy close(long estimatedUj) {
          return covered ? Energy.measured(5_000, estimatedUj) : Energy.estimated(estimatedUj);
        }

        @Override
        public void abandon() {}
      };
    }
  }

  private static ServingEngine declaring(Set<EnergyDomain> domains) {
    ScriptedEngine engine =
        new ScriptedEngine("gpu", Fidelity.F2, 10, new ArrayList<>(), ScriptedEngine.greedy());
    return new ForwardingEngine(engine) {
      @Override
      public Set<EnergyDomain> domains() {
        return domains;
      }
    };
  }

  private static MeshReceipt serve(EnergyMeter meter, ServingEngine engine) throws Exception {
    Steward steward =
        Steward.builder(KEY).chainHead(ChainHead.GENESIS).meter(meter).backend(engine).build();
    ServeRequest request =
        ServeRequest.generation(
            ContentId.ofBytes(new byte[] {'h', 'i'}),
            PROMPT.size(),
            new ServeBounds(8, Fidelity.F1, 1_000_000));
    return Jcr1.open(steward.serve(request, PROMPT).envelope()).receipt();
  }

  /**
   * Regression: the window covered only what the engine declared, so a GPU-only declaration on a
   * host with a live board counter and no CPU counter sealed the board's delta as {@code HwShunt},
   * the whole request's figure though the host's share of the serve was read by nothing.
   */
  @Test
  void aGpuOnlyDeclaration_onAHostWhoseCpuHasNoCounter_isTheEstimate_notAReading()
      throws Exception {
    CoverageMeter meter = new CoverageMeter(Set.of(GPU0));

    MeshReceipt r = serve(meter, declaring(Set.of(GPU0)));

    assertThat(r.energy().provenance()).isEqualTo(Provenance.Estimator);
    assertThat(r.energy().measuredUj()).isEmpty();
    assertThat(meter.opened)
        .singleElement()
        .satisfies(d -> assertThat(d).contains(GPU0).containsAll(HOST));
  }

  @Test
  void aGpuOnlyDeclaration_whereTheHostsPackagesHaveCounters_tooIsAReading() throws Exception {
    Set<EnergyDomain> everything = new LinkedHashSet<>(HOST);
    everything.add(GPU0);
    CoverageMeter meter = new CoverageMeter(everything);

    MeshReceipt r = serve(meter, declaring(Set.of(GPU0)));

    assertThat(r.energy().provenance()).isEqualTo(Provenance.HwShunt);
    assertThat(r.energy().measuredUj()).hasValue(5_000);
  }

  /**
   * Regression: a declaration naming some package was used as is, so a GPU with a package this
   * process cannot run on (or only some of those it may run on) sealed {@code HwShunt} from live
   * counters on what it named, though the packages the serve's own thread ran on were read by
   * nothing.
   */
  @Test
  void aDeclarationNamingAPackageTheProcessDoesNotRunOn_stillCoversTheHostsPackages()
      throws Exception {
    int beyond = HOST.stream().mapToInt(EnergyDomain::index).max().orElseThrow() + 1;
    Set<EnergyDomain> elsewhere = Set.of(GPU0, EnergyDomain.cpuPackage(beyond));
    CoverageMeter meter = new CoverageMeter(elsewhere);

    MeshReceipt r = serve(meter, declaring(elsewhere));

    assertThat(r.energy().provenance()).isEqualTo(Provenance.Estimator);
    assertThat(meter.opened)
        .singleElement()
        .satisfies(d -> assertThat(d).containsAll(elsewhere).containsAll(HOST));
  }

  @Test
  void aDeclarationNamingEveryHostPackage_orNothing_isCoveredAsDeclared() throws Exception {
    Set<EnergyDomain> gpuAndHost = new LinkedHashSet<>(HOST);
    gpuAndHost.add(GPU0);
    CoverageMeter meter = new CoverageMeter(gpuAndHost);

    assertThat(serve(meter, declaring(gpuAndHost)).energy().provenance())
        .isEqualTo(Provenance.HwShunt);
    assertThat(serve(meter, declaring(Set.of())).energy().provenance())
        .as("work done elsewhere is the estimate")
        .isEqualTo(Provenance.Estimator);
    assertThat(meter.opened).containsExactly(gpuAndHost, Set.of());
  }

  /**
   * Regression: a declaration holding a null among its domains went to the meter as it was (with
   * the host's packages added), whose read of it threw a NullPointerException out of the serve, as
   * the meter's failure rather than the backend's.
   */
  @Test
  void aDeclarationHoldingANullDomain_isRefusedAsTheBackendFailing_notAMeterThrow() {
    CoverageMeter meter = new CoverageMeter(Set.of(GPU0));

    Throwable t =
        catchThrowable(() -> serve(meter, declaring(new HashSet<>(Arrays.asList(GPU0, null)))));

    assertThat(t)
        .isInstanceOfSatisfying(
            ServeException.class,
            e -> assertThat(e.reason()).isEqualTo(ServeException.Reason.ENGINE_FAILED));
    assertThat(t.getMessage())
        .endsWith("it could not name its energy domains: it named a null one");
    assertThat(meter.opened).isEmpty();
  }
}
