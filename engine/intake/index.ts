/**
 * Log intake (spec 4.1, docs/DESIGN.md 2b): the TLS-TCP server on port 5514 that receives a TCP
 * configuration's records, its framing decoder (LF or RFC 6587 octet counting, bounded message
 * length), per-configuration counters, and the certificate bundles senders install (a CA and a
 * client certificate per configuration, zipped with a working rsyslog configuration). The client
 * certificate names the configuration; decoded messages go to a sink, which the engine wires to
 * parsing and the log store, and reading pauses while that sink lags.
 */
export { TlsIntake } from './tls-intake.ts';
export type {
  TlsIntakeOptions,
  IntakeConfig,
  IntakeConfigs,
  IntakeSink,
  IntakeCounts,
  ConfigCounts,
  RefusedCounts,
} from './tls-intake.ts';
export { FrameDecoder, DEFAULT_MAX_MESSAGE_BYTES, newFrameCounters } from './framing.ts';
export type { FrameCounters, Framing } from './framing.ts';
export {
  issueBundle,
  issueServerCertificate,
  certificateFingerprint,
  DEFAULT_CERTIFICATE_DAYS,
  CONFIG_ID_PATTERN,
} from './certificates.ts';
export type { CertificateBundle, IssueBundleInput, ServerCertificate } from './certificates.ts';
export { certificateBundle, bundleFiles, BUNDLE_FILES, INTAKE_PORT } from './bundle.ts';
export type { BundleTarget, TemplateType } from './bundle.ts';
export { zipStore } from './zip.ts';
export type { ZipEntry } from './zip.ts';
export { KafkaIntake, connectionDigest, groupIdOf, offsetMetaName } from './kafka-intake.ts';
export type {
  KafkaIntakeOptions,
  BrokerConfig,
  KafkaStore,
  FailedMessage,
  KafkaConfigCounts,
  KafkaFailure,
  KafkaState,
  PartitionLag,
  SaslMechanism,
} from './kafka-intake.ts';
