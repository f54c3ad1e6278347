/** The live page: an empty shell; the app script (served as a file: no inline script under the CSP) builds everything. */
export const LIVE_PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>agentstream</title>
<link rel="stylesheet" href="/assets/app.css">
</head>
<body>
<main id="agentstream" data-mode="live"></main>
<script src="/assets/app.js"></script>
</body>
</html>
`;
