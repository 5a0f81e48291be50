import type { NextConfig } from "next";

const config: NextConfig = {
  // The API lives in lib/http beside Next.js; Next serves only the dashboard.
  poweredByHeader: false,
  reactStrictMode: true,
  // `npm test` runs `tsc --noEmit` over the whole tree once; the build need not do it again.
  typescript: { ignoreBuildErrors: true },
};

export default config;
