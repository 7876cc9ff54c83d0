package org.meshjava.steward;

import java.util.List;
import java.util.OptionalLong;
import java.util.Set;
import org.meshjava.core.Energy;
import org.meshjava.core.EnergyDomain;
import org.meshjava.energy.EnergyMeter;
import org.meshjava.energy.MeterWindow;

/**
 * A meter that notes {@code open}, {@code close} and {@code abandon} in a shared event list, and
 * grades its figure as a hardware reading when given one. Test support only.
 */
final class RecordingMeter implements EnergyMeter {
  private final List<String> events;
  private final OptionalLong measuredUj;

  /** An estimator-graded meter. */
  RecordingMeter(List<String> events) {
    this(events, OptionalLong.empty());
  }

  /** A meter that reads {@code measuredUj} from a live hardware counter (HwShunt). */
  RecordingMeter(List<String> events, OptionalLong measuredUj) {
    this.events = events;
    this.measuredUj = measuredUj;
  }

  @Override
  public String name() {
    return "recording";
  }

  @Override
  public MeterWindow open(Set<EnergyDomain> domains) {
    events.add("open");
    return new MeterWindow() {
      @Override
      public Energy close(long estimatedUj) {
        events.add("close");
        return measuredUj.isPresent()
            ? Energy.measured(measuredUj.getAsLong(), estimatedUj)
            : Energy.estimated(estimatedUj);
      }

      @Override
      public void abandon() {
        events.add("abandon");
      }
    };
  }
}
