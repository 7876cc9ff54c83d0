package org.meshjava.energy;

import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.meshjava.core.EnergyDomain;

/**
 * Finds IOReport energy channels. Off macOS it reports {@link CounterIssue#UNSUPPORTED_PLATFORM}
 * without touching native code. On macOS it subscribes and keeps the domains the first sample delta
 * shows (CPU rail, GPU, DRAM). Stateless.
 */
final class IoReportDiscovery {
  private IoReportDiscovery() {}

  static boolean isMacOs(String osName) {
    return osName.toLowerCase(Locale.ROOT).startsWith("mac");
  }

  static void discover(String osName, List<EnergyChannel> found, List<CounterStatus> rejected) {
    if (!isMacOs(osName)) {
      rejected.add(
          CounterStatus.unavailable(
              "ioreport",
              Optional.empty(),
              CounterIssue.UNSUPPORTED_PLATFORM,
              "IOReport exists only on macOS; this is " + osName));
      return;
    }
    IoReportNative sampler;
    try {
      sampler = IoReportNative.subscribe();
    } catch (CounterException e) {
      rejected.add(CounterStatus.unavailable("ioreport", Optional.empty(), e));
      return;
    }
    adopt(new IoReportSession(sampler), sampler, found, rejected);
  }

  /** Keeps a channel per domain the session's samples carry; shared with the tests. */
  static void adopt(
      IoReportSession session,
      IoReportSampler sampler,
      List<EnergyChannel> found,
      List<CounterStatus> rejected) {
    List<IoReportEntry> first;
    try {
      sampler.sampleDelta();
      first = sampler.sampleDelta();
    } catch (CounterException e) {
      sampler.release();
      rejected.add(CounterStatus.unavailable("ioreport", Optional.empty(), e));
      return;
    }
    java.util.Set<EnergyDomain> domains = new java.util.LinkedHashSet<>();
    for (IoReportEntry e : first) {
      IoReportEnergyModel.domainOf(e).ifPresent(domains::add);
    }
    if (domains.isEmpty()) {
      sampler.release();
      rejected.add(
          CounterStatus.unavailable(
              "ioreport",
              Optional.empty(),
              CounterIssue.NOT_PRESENT,
              "no CPU, GPU or DRAM channel in the Energy Model group"));
      return;
    }
    session.retain(); // held while adopting so the first channel's release cannot end it
    for (EnergyDomain d : domains) {
      found.add(new IoReportChannel(session, d));
    }
    session.release();
  }
}
