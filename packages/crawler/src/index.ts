export { ChromiumPageLoader, toPageError, type ChromiumPageLoaderDeps } from './crawl/chromium.page-loader';
export { HttpCallbackSender } from './fetch/http.callback-sender';
export { BlockedUrlError, classifyAddress, createAddressPolicy } from './fetch/address-policy';
export type { AddressPolicy, AddressPolicyOptions, ResolveHost } from './fetch/address-policy';
export { DEFAULT_USER_AGENT, FetchFailedError, safeFetch } from './fetch/safe-fetch';
export type { FetchFailureKind, SafeFetchOptions, SafeResponse } from './fetch/safe-fetch';
export { findChromium } from './browser/find-chromium';
export { BrowserPool, RenderFailedError } from './browser/browser-pool';
export type { BrowserPoolOptions, RenderedPage, RenderOptions } from './browser/browser-pool';
export { collectPageLinks, normalizePageUrl, isAssetUrl } from './extract/page-links';
export { extractPage, type ExtractedPage } from './extract/extract-page';
export { needsBrowser } from './extract/needs-browser';
export { createPageExtractor, inlineExtractor, type PageExtractor } from './extract/page-extractor';
export { convertDocFile } from './doc-files/convert-doc-file';
export { detectDocFormat, type DocFile, type DocFormat } from './doc-files/doc-file';
export { DEFAULT_GIT_LIMITS, DEFAULT_GIT_PATHS, readGitRepository } from './git/read-git-repository';
export type {
  GitRepositoryFile,
  GitRepositoryRead,
  GitSourceLimits,
  ReadGitRepositoryOptions,
} from './git/read-git-repository';
export { GitCliGitSource } from './git/git-cli.git-source';
export { DEFAULT_ARCHIVE_LIMITS, readArchive } from './archive/read-archive';
export type {
  ArchiveFile,
  ArchiveFileFormat,
  ArchiveKind,
  ArchiveLimits,
  ArchiveRead,
  ReadArchiveOptions,
  SkippedArchiveEntry,
} from './archive/read-archive';
export { convertArchiveFiles } from './archive/archive-documents';
export { ArchiveSiteSource } from './archive/archive-site.source';
export type { ArchiveDocFile, ArchiveDocuments, ArchivePage } from './archive/archive-documents';
