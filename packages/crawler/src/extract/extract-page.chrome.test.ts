import { extractPage } from './extract-page';

/**
 * Content that chrome removal used to delete: each page is the shape of a real one (a Sphinx manual, news and blog
 * templates, a React stream, an ASP.NET form) reduced to what decided its fate.
 */
const extract = (html: string) => extractPage(html, 'https://docs.test/page.html');

const paragraph = (text: string) =>
  `<p>${text} ${'It explains the module in enough words to be a real paragraph. '.repeat(3)}</p>`;
const sidebarLinks =
  '<ul><li><a href="/a">Installing</a></li><li><a href="/b">Configuration reference</a></li>' +
  '<li><a href="/c">Deploying to production</a></li><li><a href="/d">Troubleshooting</a></li></ul>';

/** A news article as its page shows it, with `head` in its `<head>` and `extra` after its last paragraph. */
const story = (head: string, extra = '') =>
  `<head><title>Harbour reopens after storm</title>${head}</head><body><header><a href="/">Example News</a></header>` +
  '<main><article><h1>Harbour reopens after storm</h1>' +
  '<div class="meta"><span class="byline">By <a rel="author" href="/staff/jane">Jane Writer</a></span>' +
  '<span> | Updated 5:27 am, Wednesday, November 20, 2019</span></div>' +
  '<p>The harbour of Portville reopened on Wednesday, three days after the storm tore two cranes from the quay ' +
  'and sank a ferry at its mooring, the port authority said.</p>' +
  '<p>Divers spent the weekend clearing the channel, and the first cargo ship entered at dawn, guided by two tugs ' +
  'while the wind was still strong enough to close the outer breakwater.</p>' +
  '<div class="slot"><div>Advertisement</div></div>' +
  '<p>Repairs to the quay will take until spring, the authority said.</p>' +
  '<p>The ferry company expects to raise its sunken ship within a month and to run a smaller boat on the island ' +
  'route until then, with four crossings a day instead of six, and the fishermen have asked the town for help.</p>' +
  '<ul><li>Four crossings a day until the ship is raised</li><li>The outer breakwater stays closed</li></ul>' +
  extra +
  '</article></main><footer><p>Copyright Example News</p></footer></body>';

describe('extractPage keeps content whose names sound like chrome', () => {
  it('keeps a Sphinx module page whose one section is named after a cookie module', () => {
    const html =
      '<div class="document"><div class="body" role="main"><section id="module-http.cookies">' +
      '<h1>http.cookies — HTTP state management</h1>' +
      paragraph('The http.cookies module defines classes for abstracting the concept of cookies.') +
      '<section id="cookie-objects"><h2>Cookie Objects</h2>' +
      paragraph('BaseCookie.value_decode(val) returns a tuple.') +
      '</section></section></div></div><div class="sphinxsidebar" role="navigation">' +
      sidebarLinks +
      '</div>';
    const { markdown } = extract(html);
    expect(markdown).toContain('# http.cookies — HTTP state management');
    expect(markdown).toContain('defines classes for abstracting the concept of cookies');
    expect(markdown).toContain('## Cookie Objects');
    expect(markdown).not.toContain('Deploying to production');
  });

  it('keeps sections named "search-and-replace", "match-versus-search" and "file-menu"', () => {
    const html =
      '<main><h1>Regular Expression HOWTO</h1>' +
      paragraph('An introduction.') +
      '<section id="search-and-replace"><h2>Search and Replace</h2>' +
      paragraph('Another common task is to find all the matches for a pattern.') +
      '</section><section id="match-versus-search"><h2>match() versus search()</h2>' +
      paragraph('The match() function only checks if the RE matches at the beginning of the string.') +
      '</section><div class="section" id="file-menu"><h3>File menu (Shell and Editor)</h3>' +
      '<dl><dt>New File</dt><dd>Create a new file editing window.</dd></dl></div></main>';
    const { markdown } = extract(html);
    expect(markdown).toContain('## Search and Replace');
    expect(markdown).toContain('find all the matches for a pattern');
    expect(markdown).toContain('## match() versus search()');
    expect(markdown).toContain('### File menu (Shell and Editor)');
    expect(markdown).toContain('Create a new file editing window.');
  });

  it('keeps API signatures whose ids name a search or a cookie jar (re.search beside re.match)', () => {
    const html =
      '<main><h1>re</h1><dl class="py function"><dt class="sig sig-object py" id="re.search">' +
      '<span class="sig-prename descclassname">re.</span><span class="sig-name descname">search</span>' +
      '(<em>pattern</em>, <em>string</em>)</dt><dd><p>Scan through string looking for the first match.</p></dd></dl>' +
      '<dl class="py function"><dt class="sig sig-object py" id="re.match"><span class="sig-prename">re.</span>' +
      '<span class="sig-name">match</span>(<em>pattern</em>, <em>string</em>)</dt>' +
      '<dd><p>Match at the beginning of string.</p></dd></dl><dl class="py class">' +
      '<dt class="sig sig-object py" id="http.cookiejar.CookieJar"><em class="property">class </em>' +
      '<span class="sig-name">CookieJar</span>(<em>policy=None</em>)</dt><dd><p>Stores cookies.</p></dd></dl></main>';
    const { markdown } = extract(html);
    expect(markdown).toContain('re.search(_pattern_, _string_)');
    expect(markdown).toContain('re.match(_pattern_, _string_)');
    expect(markdown).toContain('CookieJar(_policy=None_)');
  });

  it.each([
    ['content-w-sidebar', '<div class="content-w-sidebar">'],
    ['withSidebar', '<div class="layout withSidebar">'],
    ['cs-sidebar-enabled', '<div class="cs-site cs-sidebar-enabled">'],
    ['news-banner', '<div id="news-banner" class="page">'],
    ['lte-banner', '<div class="lte-banner-wrapper">'],
    ['toc wrapper', '<div class="toc-layout">'],
    ['--with-menu', '<div class="page page--with-menu">'],
  ])('keeps a page whose content wrapper is named %s', (_name, wrapper) => {
    const html =
      `<body><header><a href="/">Home</a></header>${wrapper}<h1>The article title</h1>` +
      paragraph('The first paragraph of the article.') +
      paragraph('The second paragraph of the article.') +
      `<div class="sidebar">${sidebarLinks}</div></div><footer>© Example</footer></body>`;
    const { markdown } = extract(html);
    expect(markdown).toContain('# The article title');
    expect(markdown).toContain('The second paragraph of the article.');
    expect(markdown).not.toContain('Deploying to production');
    expect(markdown).not.toContain('© Example');
  });

  it('keeps a page shown by a script from a visibility:hidden anti-flicker wrapper', () => {
    const html =
      '<body><div class="wrapper" style="visibility: hidden"><div class="menu">' +
      sidebarLinks +
      '</div><div class="post"><h1>Hidden until the script ran</h1>' +
      paragraph('The article body is here.') +
      '</div></div><script>document.querySelector(".wrapper").style.visibility = "visible"</script></body>';
    const { markdown } = extract(html);
    expect(markdown).toContain('# Hidden until the script ran');
    expect(markdown).toContain('The article body is here.');
    expect(markdown).not.toContain('Deploying to production');
  });

  it("keeps React's streamed content from its hidden placeholder but drops a hidden menu", () => {
    const html =
      '<body><div id="__next"><nav>' +
      sidebarLinks +
      '</nav><template id="B:0"></template><p>Loading…</p></div>' +
      '<div hidden id="S:0"><div class="post"><h1>Streamed article</h1>' +
      paragraph('Streamed text arrives after the shell.') +
      '</div></div><div hidden class="dropdown">' +
      sidebarLinks +
      '</div></body>';
    const { markdown } = extract(html);
    expect(markdown).toContain('# Streamed article');
    expect(markdown).toContain('Streamed text arrives after the shell.');
    expect(markdown).not.toContain('Deploying to production');
  });

  it("keeps an accordion's answers hidden until their control is clicked, not a menu or search panel a button opens", () => {
    const step = (n: number, text: string) =>
      `<a id="step${n}_head" role="button" aria-controls="step${n}_body">Step ${n}</a>` +
      `<div id="step${n}_body" style="display:none;" role="region" aria-labelledby="step${n}_head">` +
      paragraph(text) +
      '</div>';
    const html =
      '<head><title>How to install solar panels</title><meta property="og:type" content="article"></head><body>' +
      '<button aria-controls="site-menu" aria-expanded="false">Menu</button><div id="site-menu" hidden>' +
      sidebarLinks +
      '</div><button aria-controls="search-panel">Search</button><div id="search-panel" style="display:none">' +
      '<form><input name="q"><p>Search the whole guide and every other article we publish.</p></form></div>' +
      '<main><article><h1>How to install solar panels</h1>' +
      paragraph('Installing solar panels takes two to three months from start to finish.') +
      step(1, 'Gather twelve months of electric bills before you ask installers for quotes.') +
      step(2, 'An engineer visits your property to check the roof and the electrical panel.') +
      '</article></main></body>';
    const { markdown } = extract(html);
    expect(markdown).toContain('Gather twelve months of electric bills');
    expect(markdown).toContain('An engineer visits your property');
    expect(markdown).not.toContain('Deploying to production');
    expect(markdown).not.toContain('Search the whole guide');
  });

  it("keeps an accordion block whose class names its panes' header alignment, buttons and all", () => {
    // A WordPress accordion block: `kt-pane-header-alignment-left` on the wrapper of every pane.
    const pane = (title: string, text: string) =>
      `<div class="kt-accordion-pane"><div class="kt-accordion-header-wrap"><button type="button">${title}</button>` +
      `</div><div class="kt-accordion-panel">${paragraph(text)}</div></div>`;
    const html =
      '<body><main><h1>The best accounting software</h1>' +
      [1, 2, 3, 4, 5, 6]
        .map((i) => paragraph(`Tool ${i} of the twelve we tested for people who work for themselves.`))
        .join('') +
      '<div class="kt-accordion-wrap kt-pane-header-alignment-left">' +
      pane('My methodology', 'Every tool was scored on invoicing, expenses and tax reports.') +
      pane('Pricing', 'Prices were those of the yearly plans in the United States.') +
      '</div></main></body>';
    const { markdown } = extract(html);
    expect(markdown).toContain('Every tool was scored on invoicing');
    expect(markdown).toContain('Prices were those of the yearly plans');
  });

  it('keeps an ASP.NET page that is one page-wide <form>, without its controls', () => {
    const html =
      '<body><form method="post" action="./page.aspx" id="form1"><input type="hidden" name="__VIEWSTATE" value="x">' +
      '<div class="header"><a href="/">Home</a></div><div id="main"><h1>Quarterly report</h1>' +
      paragraph('Revenue grew this quarter.') +
      paragraph('Costs fell.') +
      '</div><input type="submit" value="Subscribe"></form></body>';
    const { markdown } = extract(html);
    expect(markdown).toContain('# Quarterly report');
    expect(markdown).toContain('Costs fell.');
    expect(markdown).not.toContain('Subscribe');
  });

  it('does not take a small dropdown <article> for the content root', () => {
    const html =
      '<body><div class="nav-dropdown"><article class="promo"><a href="/x">Read our latest news</a></article></div>' +
      '<div class="story"><h1>The story</h1>' +
      paragraph('The story begins here.') +
      paragraph('It goes on.') +
      '</div></body>';
    const { markdown } = extract(html);
    expect(markdown).toContain('# The story');
    expect(markdown).toContain('The story begins here.');
  });
});

describe('extractPage drops chrome inside the content by what it is', () => {
  it('drops a named table of contents, "Last updated" line and search widget inside the content', () => {
    const html =
      '<main><h1>Guide</h1><div class="toc"><p><b>Table of Contents</b></p><dl><dt><a href="#a">Getting started</a>' +
      '</dt></dl></div>' +
      paragraph('The guide.') +
      '<div class="search-box"><form><input name="q"></form>Search the docs</div>' +
      '<div class="last-updated">Last updated on 3 May 2024</div></main>';
    const { markdown } = extract(html);
    expect(markdown).toContain('The guide.');
    expect(markdown).not.toContain('Table of Contents');
    expect(markdown).not.toContain('Search the docs');
    expect(markdown).not.toContain('Last updated');
  });

  it('believes names inside sections and articles, not inside headings, code or tables', () => {
    const html =
      '<main><h1>Guide</h1><section id="usage"><h2>Usage</h2><div class="sidebar-toc"><a href="#a">Install</a> ' +
      '<a href="#b">Configure the service</a></div>' +
      paragraph('How to use it.') +
      '<h3>Options <a class="header" href="#o">Options</a></h3><table><tr><td><span class="search">search</span></td>' +
      '<td>Finds pages.</td></tr></table></section></main>';
    const { markdown } = extract(html);
    expect(markdown).toContain('How to use it.');
    expect(markdown).not.toContain('Configure the service');
    expect(markdown).toContain('search\n\nFinds pages.');
    expect(markdown).toContain('### Options Options');
  });

  it('drops a "Was this page helpful?" block with its buttons', () => {
    const html =
      '<main><h1>Guide</h1>' +
      paragraph('The guide.') +
      '<div class="page-rating"><p>Was this page helpful?</p><button>Yes</button><button>No</button></div></main>';
    const { markdown } = extract(html);
    expect(markdown).toContain('The guide.');
    expect(markdown).not.toContain('helpful');
  });
});

describe('extractPage around articles', () => {
  it('drops a share bar named as one, with its heading', () => {
    const html =
      '<main><h1>Story</h1>' +
      paragraph('The story.') +
      '<div class="sd-social sd-sharing"><h3>Share this:</h3><ul><li><a href="/s?f">Click to share on Facebook</a></li>' +
      '<li><a href="/s?t">Click to share on Twitter</a></li></ul></div></main>';
    const { markdown } = extract(html);
    expect(markdown).toContain('The story.');
    expect(markdown).not.toContain('Share this');
  });

  it('drops a comment thread told by its repeated comments and reply form, however long it is', () => {
    const comment = (i: number) =>
      `<li id="comment-${i}" class="comment"><div class="comment-body"><p>Reader ${i} thinks the team will not make the playoffs this year, whatever the coach says now.</p></div></li>`;
    const html =
      '<body><div class="vp-doc"><h1>Story</h1>' +
      paragraph('The short story.') +
      `<div class="comments-container"><div id="comments" class="comments-area"><h2>34 responses</h2><ol class="comment-list">${Array.from({ length: 12 }, (_, i) => comment(i)).join('')}</ol>` +
      '<div id="respond" class="comment-respond"><form><textarea name="comment"></textarea></form></div></div></div></div></body>';
    const { markdown } = extract(html);
    expect(markdown).toContain('The short story.');
    expect(markdown).not.toContain('Reader 3 thinks');
    expect(markdown).not.toContain('34 responses');
  });

  it('drops unnamed teaser lists after the article, with their headings, and keeps a lone link among paragraphs', () => {
    const teaser = (i: number) =>
      `<li><a href="/video/${i}"><img src="/t${i}.jpg" alt="">Video ${i}</a><h2><a href="/video/${i}">Teaser headline number ${i} of the day</a></h2></li>`;
    const html =
      '<body><div class="container"><div class="element"><h1>Story</h1>' +
      paragraph('The first paragraph.') +
      '<div><ul><li><h3><a href="/other">One other story, told between paragraphs</a></h3></li></ul></div>' +
      paragraph('The second paragraph, with commas, as prose has them, here and there.') +
      paragraph('The third paragraph.') +
      `<h3>Top Video</h3><div><ul>${[1, 2, 3].map(teaser).join('')}</ul></div>` +
      '</div></div><div class="bottom"><p>Copyright Example News</p></div></body>';
    const { markdown } = extract(html);
    expect(markdown).toContain('The third paragraph.');
    expect(markdown).toContain('One other story, told between paragraphs');
    expect(markdown).not.toContain('Teaser headline number 2');
    expect(markdown).not.toContain('Top Video');
  });

  it('drops a list of teasers whose excerpts are cut off, and a run of lone-link blocks, but keeps a lone link', () => {
    // A news template's ticker before the story (each link followed by the start of that story), and links written
    // as blocks of one link each after it.
    const teaser = (i: number) =>
      `<li><a href="/story-${i}">Headline of story ${i}</a><span>CITY: The first words of story ${i}, which ` +
      'goes on for a while about what happened there and who said what about it until it stops...</span></li>';
    const html =
      '<body><div class="top"><a href="/">Example Post</a></div><div class="content"><div class="left">' +
      '<div class="ticker"><b>Latest</b><ul>' +
      [1, 2, 3, 4].map(teaser).join('') +
      '</ul></div><h2>The story</h2>' +
      paragraph('The first paragraph.') +
      paragraph('The second paragraph, with commas, as prose has them, here and there.') +
      '<p><a href="/source">The report this story is about</a></p>' +
      paragraph('The last paragraph.') +
      [1, 2, 3].map((i) => `<div><a href="https://elsewhere.test/${i}">Sponsored link ${i}</a></div>`).join('') +
      '</div></div><div class="bottom"><p>Copyright Example Post</p></div></body>';
    const { markdown } = extract(html);
    expect(markdown).toContain('The last paragraph.');
    expect(markdown).toContain('The report this story is about');
    expect(markdown).not.toContain('The first words of story 2');
    expect(markdown).not.toContain('Headline of story 3');
    expect(markdown).not.toContain('Sponsored link 2');
  });

  it("drops an article's byline and labels that Readability's reading leaves out, and only an article's", () => {
    const article = extract(story('<meta property="og:type" content="article">')).markdown;
    expect(article).toContain('Divers spent the weekend clearing the channel');
    expect(article).toContain('Repairs to the quay will take until spring');
    expect(article).toContain('The outer breakwater stays closed');
    expect(article).not.toContain('Jane Writer');
    expect(article).not.toContain('Advertisement');
    // A page that does not say it is an article (documentation) keeps every block.
    const page = extract(story('')).markdown;
    expect(page).toContain('Jane Writer');
    expect(page).toContain('Advertisement');
  });

  it("judges an article whose content is a `#main-content` skip-link target as an article, a rustdoc page's as documentation", () => {
    // rustdoc puts its content in #main-content, as many news templates name their skip link's target.
    const news = story('<meta property="og:type" content="article">').replace('<main>', '<main id="main-content">');
    expect(extract(news).markdown).not.toContain('Jane Writer');
    const rustdoc = story('<meta property="og:type" content="article"><meta name="generator" content="rustdoc">');
    expect(extract(rustdoc.replace('<main>', '<main id="main-content">')).markdown).toContain('Jane Writer');
  });

  it("keeps an article's checklist that Readability's reading misses, though each of its blocks is short", () => {
    const job = (name: string, i: number) =>
      `<div class="card"><p>${name}</p><p>INTERVAL: every ${i + 1},000 miles</p><p>PRICE: $${(i + 2) * 15}</p>` +
      `<p>The ${name.toLowerCase()} keeps the car running well, and a mechanic or a quick shop will do it for less ` +
      'than the car dealer charges for it.</p></div>';
    const html =
      '<head><title>Car checklist</title><meta property="og:type" content="article"></head><body><main><article>' +
      '<h1>Your car checklist</h1>' +
      paragraph('Nothing will do more to make your car last longer than keeping on top of basic upkeep.') +
      paragraph('The best source for the intervals is the owner’s manual; these are the general guidelines.') +
      `<div class="extra-checklist">${['Oil change', 'Tire rotation', 'Brake fluid', 'Coolant', 'Air filter', 'Wiper blades'].map(job).join('')}</div>` +
      '</article></main></body>';
    const { markdown } = extract(html);
    expect(markdown).toContain('INTERVAL: every 1,000 miles');
    expect(markdown).toContain('The wiper blades keeps the car running well');
  });

  it("keeps an article's short block whose lines Readability keeps, read word by word across its line breaks", () => {
    const timetable = '<p>Ferry timetable<br>Crossings: four a day<br>Fare: $12 return<br>First boat: 6 am</p>';
    const article = extract(story('<meta property="og:type" content="article">', timetable)).markdown;
    expect(article).toContain('Crossings: four a day');
    expect(article).not.toContain('Jane Writer');
  });

  it('takes a WordPress page whose banner is <header id="header"> beside #content for a page, not an Asciidoc one', () => {
    const html =
      '<body><div id="page"><header id="header" class="site-header"><p>Example Blog, a blog about examples and their uses</p>' +
      '<nav><a href="/">Home</a></nav></header><div id="content"><main><article><h1>Open thread</h1>' +
      paragraph('The article.') +
      '</article></main><aside class="widget-area"><p>' +
      'Sign up for our newsletter to get every post of the blog in your inbox each week. '.repeat(3) +
      '</p></aside></div></div></body>';
    const { markdown } = extract(html);
    expect(markdown).toContain('The article.');
    expect(markdown).not.toContain('Example Blog');
    expect(markdown).not.toContain('newsletter');
  });

  it("puts back the page's headline when the content root left it out", () => {
    const html =
      '<head><title>The long story | Example News</title></head><body><header><a href="/">Example News</a></header>' +
      '<div class="headline"><h1>The long story</h1><p class="byline">By A. Writer</p></div><main>' +
      paragraph('The first paragraph.') +
      paragraph('The second paragraph.') +
      '</main></body>';
    const { markdown, title } = extract(html);
    expect(title).toBe('The long story');
    expect(markdown).toMatch(/^# The long story\n\nThe first paragraph\./);
  });
});

describe('extractPage never drops a page with text silently', () => {
  it('takes the whole body again when the first try kept next to nothing, and says nothing is lost', () => {
    const html =
      '<body><nav>' +
      sidebarLinks +
      '</nav><div class="sidebar-layout-main"><div class="menu-content">' +
      paragraph('A page whose every wrapper is named like a menu.') +
      paragraph('Its text is still its content.') +
      '</div></div></body>';
    const page = extract(html);
    expect(page.markdown).toContain('Its text is still its content.');
    expect(page.lostContent).toBeUndefined();
  });

  it("tries the body's prose block when the one <article> is a teaser in a related box", () => {
    const html =
      '<body><div class="story"><h1>The plague story</h1><div class="box"><div class="see-also">' +
      '<article><h3><a href="/other">Another story</a></h3><div class="excerpt">A teaser of the other story.</div></article></div></div>' +
      paragraph('The first paragraph of the plague story.') +
      paragraph('The second paragraph, with commas, here, and there.') +
      paragraph('The third paragraph.') +
      '</div><div class="sidebar-widgets"><p>' +
      'Our newsletter brings every story of the week to your inbox, free. '.repeat(3) +
      '</p></div></body>';
    const page = extract(html);
    expect(page.markdown).toContain('The third paragraph.');
    expect(page.markdown).not.toContain('newsletter');
    expect(page.lostContent).toBeUndefined();
  });

  it('drops a comment thread from the second try too, when the article is short', () => {
    const comment = (i: number) =>
      `<li class="comment"><div class="comment-body"><p>Reader ${i} asks a long question about the charity, its reports and its plans for next year.</p></div></li>`;
    const html =
      '<body><main><article><h1>Open thread</h1><p>Ask us anything below, in the comments section.</p></article>' +
      `<div id="comments" class="comments-area"><ol class="comment-list">${Array.from({ length: 12 }, (_, i) => comment(i)).join('')}</ol></div>` +
      '</main></body>';
    const page = extract(html);
    expect(page.markdown).toContain('Ask us anything below');
    expect(page.markdown).not.toContain('Reader 3 asks');
  });

  it('reports a page whose body has text that no rule can call content', () => {
    const html =
      '<body><main><h1>Playground</h1><textarea>' +
      'The only prose of the page stands in a form field, which is never content. '.repeat(6) +
      '</textarea></main></body>';
    const page = extract(html);
    expect(page.lostContent).toMatch(/no content found in a page whose body holds about \d+ words of text/);
  });
});
