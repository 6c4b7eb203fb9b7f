"""Generate deterministic, realistic synthetic Crossref work records as JSON Lines.

Each output line is one bare Crossref REST ``/works/{doi}`` ``message`` object
(journal and proceedings articles, book chapters, preprints, reports, datasets
and dissertations from the ML-systems / compilers / architecture / HPC field).
The record shapes follow the real records in ``<project>/seeds/*.txt``; the
people, institutions, venues and the ~20,000 cited works (plus ~100 software
tools) are drawn from fixed pools, so authors, ORCIDs, affiliations and cited
works recur across records the way they do in real data.  Record ``i`` depends
only on ``(seed, i)``: the first 1,000 lines of any larger run equal a 1,000
record run with the same seed.

Usage:
    python bench/synth.py N OUT [--seed S] [--jobs J]

    OUT is a path (gzip-compressed when it ends with ``.gz``) or ``-`` for stdout.
    --jobs J builds the records in J worker processes (default 1; 0 = one per CPU); the
    output bytes never depend on it.

Example:
    python bench/synth.py 100000 /tmp/works.jsonl.gz --seed 7
"""

from __future__ import annotations

import argparse
import gc
import gzip
import json
import os
import sys
from bisect import bisect_right
from datetime import date
from itertools import accumulate
from pathlib import Path
from random import Random
from typing import Any, Callable, Iterator

try:  # pragma: no cover - exercised implicitly
    import orjson

    def _dumps(obj: Any) -> bytes:
        return orjson.dumps(obj)

except ImportError:  # pragma: no cover

    def _dumps(obj: Any) -> bytes:
        return json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


SEED_DIR = Path(__file__).resolve().parent.parent / "seeds"
POOL_SEED = "crossref-kg/synth/pools/v1"

N_PEOPLE = 5000
N_CITED = 20000
HEADER_CACHE_BELOW = 20000
NOW_ORD = date(2026, 5, 31).toordinal()
EPOCH_ORD = date(1970, 1, 1).toordinal()

# --------------------------------------------------------------------------
# Key orders.  The work-level order is merged from the seed records (the
# templates) and this canonical Crossref order, which places keys the seeds
# do not have (ISSN, volume, abstract, ...).
# --------------------------------------------------------------------------
CANONICAL_WORK_ORDER: list[str] = [
    "indexed", "publisher-location", "reference-count", "publisher", "issue", "license",
    "funder", "content-domain", "short-container-title", "published-print", "abstract",
    "DOI", "type", "subtype", "created", "page", "update-policy", "source",
    "is-referenced-by-count", "title", "prefix", "volume", "author", "member",
    "published-online", "reference", "event", "container-title", "original-title",
    "language", "link", "deposited", "score", "resource", "subtitle", "editor",
    "short-title", "group-title", "institution", "degree", "approved", "number", "issued", "ISBN",
    "references-count", "journal-issue", "alternative-id", "URL", "relation", "ISSN",
    "issn-type", "isbn-type", "subject", "published", "posted", "assertion", "article-number",
]
CANONICAL_REF_ORDER: list[str] = [
    "issue", "key", "doi-asserted-by", "edition", "first-page", "article-title",
    "series-title", "volume-title", "volume", "author", "year", "unstructured",
    "journal-title", "DOI",
]


def merge_orders(seqs: list[list[str]]) -> list[str]:
    """Merge key sequences into one order that keeps each sequence's relative order
    where possible (earlier sequences win); unseen keys go after their predecessor."""
    out: list[str] = []
    for seq in seqs:
        prev: str | None = None
        for k in seq:
            if k not in out:
                pos = out.index(prev) + 1 if prev is not None else 0
                if prev is None:
                    # place before the first later key of seq already present
                    later = [out.index(x) for x in seq if x in out]
                    pos = min(later) if later else len(out)
                out.insert(pos, k)
            prev = k
    return out


class Templates:
    """Facts harvested from the seed records."""

    def __init__(self, seed_dir: Path = SEED_DIR) -> None:
        self.work_orders: list[list[str]] = []
        self.ref_orders: list[list[str]] = []
        self.forbidden_titles: set[str] = set()
        self.forbidden_dois: set[str] = set()
        self.sponsors: list[str] = []
        self.versions: list[str] = []
        for f in sorted(seed_dir.glob("*.txt")) if seed_dir.is_dir() else []:
            try:
                msg = json.loads(f.read_text(encoding="utf-8"))["message"]
            except (ValueError, KeyError, OSError):
                continue
            self.work_orders.append(list(msg))
            for t in msg.get("title", []) + msg.get("subtitle", []):
                self.forbidden_titles.add(t.strip().lower())
            if "DOI" in msg:
                self.forbidden_dois.add(msg["DOI"].lower())
            for r in msg.get("reference", []):
                self.ref_orders.append(list(r))
                if "DOI" in r:
                    self.forbidden_dois.add(r["DOI"].lower())
            for s in (msg.get("event") or {}).get("sponsor", []):
                if s not in self.sponsors:
                    self.sponsors.append(s)
            v = (msg.get("indexed") or {}).get("version")
            if v and v not in self.versions:
                self.versions.append(v)
        self.work_order = merge_orders(self.work_orders + [CANONICAL_WORK_ORDER])
        # the reference order: canonical first (it is consistent with the seeds)
        self.ref_order = merge_orders([CANONICAL_REF_ORDER] + self.ref_orders)
        self.ref_rank = {k: n for n, k in enumerate(self.ref_order)}
        if not self.versions:
            self.versions = ["3.49.0", "3.50.1", "3.51.2"]


# --------------------------------------------------------------------------
# Vocabularies
# --------------------------------------------------------------------------
GIVEN = (
    "Wei Jing Yiqi Yuqi Xiaoming Hao Lianmin Tianqi Zhihao Yuxuan Mingyu Jiawei Haichen Yida "
    "Keren Mao Zhen Xin Yue Lei Chao Bo Jun Ying Hui Rui Shuai Zihan Yangjie Jingwen Minyi "
    "Arjun Priya Rohan Ananya Vikram Sanjay Deepak Kavya Aditya Shreya Nitin Amey Bhargav "
    "Ramachandran Swapnil Karthik Lakshmi Jae-Won Min-Soo Hyeran Jiwon Seung-Hoon Eunji Jaewoong "
    "Hyoukjoong Sungjin Hiroshi Yuki Takeshi Kenji Akira Haruka Satoshi José François Jürgen "
    "Søren Łukasz Ángel Zoë Björn Renée Andrés Matías Núria Ömer Çağrı Jérôme Hélène Günter "
    "Michael Amanda Ian Sarah Daniel Emily Christopher Jessica Matthew Ashley Joshua Rachel David "
    "John James Robert Mary Jennifer Linda Elizabeth William Thomas Charles Andrew Kevin Brian "
    "Steven Laura Michelle Nicole Samuel Benjamin Olivia Sophia Noah Ethan Lucas Mason Alexander "
    "Ahmed Fatima Reza Mohammad Leila Omar Yusuf Amir Mina Ioannis Dimitrios Eleni Nikos Georgios "
    "Paulius Tri Martín Asaf Noelle Selvaraj Hartwig Jack Albert Sven Oleksandr Theodoros Priyanka "
    "Giulia Marco Luca Francesca Alessandro Pierre Camille Antoine Mathieu Lars Ingrid Anders Erik "
    "Mikael Katarzyna Piotr Tomasz Ivan Dmitry Elena Olga Sergey Natalia Quoc Thanh Minh Huong "
    "Tuan Dũng Carlos Ana Luis Diego Sofía Pablo Gabriel Rafael Beatriz João Mariana Tiago "
    "Kunle Chinedu Amara Kwame Ngozi Tendai Sipho Zanele Hamid Farzad Parisa Arash Nima Shahin "
    "Yonghui Dehao Youlong Jeffrey Sanjay Gregory Urs Norm Margaret Barbara Susan Karen Lisa "
    "Ramin Ravi Suresh Anand Manish Rajesh Vivek Gaurav Abhishek Harsha Divya Sneha Pooja Neha"
).split()
FAMILY = (
    "Chen Wang Li Zhang Liu Zhāng Zhou Yang Huang Zhao Wu Xu Sun Ma Zhu Hu Guo Lin He Gao Luo "
    "Zheng Xue Lü Tang Feng Deng Cao Peng Zeng Xiao Tian Dong Pan Yuan Cai Jiang Yu Du Ye Cheng "
    "Wei Su Lu Ding Ren Shen Yao Kim Lee Park Choi Jeon Jung Kang Cho Yoon Jang Lim Han Shin "
    "Sato Suzuki Takahashi Tanaka Watanabe Ito Yamamoto Nakamura Kobayashi Kato Patel Sharma "
    "Gupta Kumar Singh Agrawal Iyer Reddy Rao Krishnamurthy Ramaswamy Venkataraman Subramanian "
    "Narayanan Mukherjee Banerjee Chatterjee Das Bose Joshi Mehta Shah Desai Kulkarni Müller "
    "Schmidt Schäfer Fischer Weber Becker Wagner Hoffmann Köpf Schröder Krüger Hartmann Lange "
    "García Martínez López González Rodríguez Fernández Pérez Sánchez Gómez Díaz Núñez Ramírez "
    "Rossi Russo Bianchi Romano Colombo Ricci Marino Dubois Lefèvre Moreau Girard Bonnet Lebrón "
    "Rivière Mercier Nowak Kowalski Wiśniewski Dąbrowski Kovačević Đorđević Novák Dvořák Nielsen "
    "Jensen Sørensen Andersson Johansson Lindström Öberg Virtanen Korhonen Papadopoulos Zarkadas "
    "Nikolaidis Yılmaz Şahin Öztürk Cohen Levi Friedman Ivanov Smirnov Petrov Volkov Nguyen "
    "Nguyễn Tran Pham Hoang Hosseini Ahmadi Karimi Rahimi Hassan Ali Khan Ibrahim Okafor Mensah "
    "Smith Johnson Williams Brown Jones Davis Miller Wilson Moore Taylor Anderson Thomas Jackson "
    "White Harris Martin Thompson Robinson Clark Lewis Walker Hall Allen Young King Wright Scott "
    "Green Baker Adams Nelson Hill Campbell Mitchell Roberts Carter Phillips Evans Turner Torres "
    "Parker Collins Edwards Stewart Morris Murphy Cook Rogers Morgan Cooper Peterson Reed Bailey "
    "Bell Kelly Howard Ward Cox Richardson Wood Watson Brooks Bennett Gray Hughes Price Sanders "
    "Myers Long Ross Foster McDougall O'Brien O'Neil MacLeod Dao Abadi Tomlinson Crawford Davies "
    "Anandaraj Silva Santos Oliveira Souza Costa Ferreira Almeida Carvalho Pereira"
).split() + ["van der Berg", "de Jong", "van Dijk", "De Vries", "Bakker", "Visser", "Mulder",
             "Le Gall", "Al-Hashimi", "El-Sayed", "da Silva"]
MIDDLE = "A B C D E F G H J K L M N P R S T V W Y".split()

CITIES = [
    ("Austin", "Texas", "USA"), ("Denver", "Colorado", "USA"), ("Portland", "Oregon", "USA"),
    ("Nashville", "Tennessee", "USA"), ("Orlando", "Florida", "USA"), ("Omaha", "Nebraska", "USA"),
    ("Tulsa", "Oklahoma", "USA"), ("Albany", "New York", "USA"), ("Dayton", "Ohio", "USA"),
    ("Lyon", None, "France"), ("Lille", None, "France"), ("Nantes", None, "France"),
    ("Bordeaux", None, "France"), ("Stuttgart", None, "Germany"), ("Dresden", None, "Germany"),
    ("Leipzig", None, "Germany"), ("Hannover", None, "Germany"), ("Erlangen", None, "Germany"),
    ("Paderborn", None, "Germany"), ("Bologna", None, "Italy"), ("Pisa", None, "Italy"),
    ("Torino", None, "Italy"), ("Valencia", None, "Spain"), ("Málaga", None, "Spain"),
    ("Porto", None, "Portugal"), ("Coimbra", None, "Portugal"), ("Linköping", None, "Sweden"),
    ("Lund", None, "Sweden"), ("Tampere", None, "Finland"), ("Oulu", None, "Finland"),
    ("Bergen", None, "Norway"), ("Aarhus", None, "Denmark"), ("Eindhoven", None, "Netherlands"),
    ("Twente", None, "Netherlands"), ("Leuven", None, "Belgium"), ("Graz", None, "Austria"),
    ("Innsbruck", None, "Austria"), ("Brno", None, "Czech Republic"), ("Poznań", None, "Poland"),
    ("Wrocław", None, "Poland"), ("Ljubljana", None, "Slovenia"), ("Novi Sad", None, "Serbia"),
    ("Cluj-Napoca", None, "Romania"), ("Patras", None, "Greece"), ("Thessaloniki", None, "Greece"),
    ("Ankara", None, "Turkey"), ("İzmir", None, "Turkey"), ("Haifa", None, "Israel"),
    ("Chengdu", "Sichuan", "China"), ("Xi'an", "Shaanxi", "China"), ("Harbin", "Heilongjiang", "China"),
    ("Changsha", "Hunan", "China"), ("Tianjin", None, "China"), ("Dalian", "Liaoning", "China"),
    ("Xiamen", "Fujian", "China"), ("Jinan", "Shandong", "China"), ("Hefei", "Anhui", "China"),
    ("Busan", None, "Korea"), ("Daegu", None, "Korea"), ("Gwangju", None, "Korea"),
    ("Osaka", None, "Japan"), ("Nagoya", None, "Japan"), ("Sendai", None, "Japan"),
    ("Tsukuba", None, "Japan"), ("Fukuoka", None, "Japan"), ("Hyderabad", "Telangana", "India"),
    ("Kanpur", "Uttar Pradesh", "India"), ("Kharagpur", "West Bengal", "India"),
    ("Delhi", None, "India"), ("Pune", "Maharashtra", "India"), ("Taipei", None, "Taiwan"),
    ("Hsinchu", None, "Taiwan"), ("Kuala Lumpur", None, "Malaysia"), ("Bangkok", None, "Thailand"),
    ("Hanoi", None, "Vietnam"), ("Brisbane", "Queensland", "Australia"), ("Adelaide", "South Australia", "Australia"),
    ("Auckland", None, "New Zealand"), ("Campinas", "São Paulo", "Brazil"),
    ("Porto Alegre", "Rio Grande do Sul", "Brazil"),
    ("Santiago", None, "Chile"), ("Bogotá", None, "Colombia"), ("Cape Town", None, "South Africa"),
    ("Nairobi", None, "Kenya"), ("Lagos", None, "Nigeria"), ("Cairo", None, "Egypt"),
    ("Tehran", None, "Iran"), ("Isfahan", None, "Iran"), ("Riyadh", None, "Saudi Arabia"),
    ("Doha", None, "Qatar"), ("Calgary", "Alberta", "Canada"), ("Edmonton", "Alberta", "Canada"),
    ("Ottawa", "Ontario", "Canada"), ("Halifax", "Nova Scotia", "Canada"),
]

INSTITUTIONS_REAL = [
    ("Columbia University", "New York", "New York", "USA"),
    ("University of California, San Diego", "San Diego", "California", "USA"),
    ("University of California, Merced", "Merced", "California", "USA"),
    ("University of Illinois Urbana-Champaign", "Urbana", "Illinois", "USA"),
    ("University of Wisconsin-Madison", "Madison", "Wisconsin", "USA"),
    ("George Mason University", "Fairfax", "Virginia", "USA"),
    ("Massachusetts Institute of Technology", "Cambridge", "Massachusetts", "USA"),
    ("Stanford University", "Stanford", "California", "USA"),
    ("University of California, Berkeley", "Berkeley", "California", "USA"),
    ("Carnegie Mellon University", "Pittsburgh", "Pennsylvania", "USA"),
    ("Cornell University", "Ithaca", "New York", "USA"),
    ("University of Washington", "Seattle", "Washington", "USA"),
    ("Princeton University", "Princeton", "New Jersey", "USA"),
    ("Harvard University", "Cambridge", "Massachusetts", "USA"),
    ("Georgia Institute of Technology", "Atlanta", "Georgia", "USA"),
    ("University of Michigan", "Ann Arbor", "Michigan", "USA"),
    ("The University of Texas at Austin", "Austin", "Texas", "USA"),
    ("Purdue University", "West Lafayette", "Indiana", "USA"),
    ("University of California, Los Angeles", "Los Angeles", "California", "USA"),
    ("University of Toronto", "Toronto", "Ontario", "Canada"),
    ("ETH Zurich", "Zurich", None, "Switzerland"),
    ("EPFL", "Lausanne", None, "Switzerland"),
    ("University of Cambridge", "Cambridge", None, "United Kingdom"),
    ("The University of Edinburgh", "Edinburgh", None, "United Kingdom"),
    ("Imperial College London", "London", None, "United Kingdom"),
    ("Technical University of Munich", "Munich", None, "Germany"),
    ("RWTH Aachen University", "Aachen", None, "Germany"),
    ("Karlsruhe Institute of Technology", "Karlsruhe", None, "Germany"),
    ("Technische Universität Darmstadt", "Darmstadt", None, "Germany"),
    ("Inria", "Rennes", None, "France"),
    ("Université Grenoble Alpes", "Grenoble", None, "France"),
    ("Barcelona Supercomputing Center", "Barcelona", None, "Spain"),
    ("Universitat Politècnica de Catalunya", "Barcelona", None, "Spain"),
    ("Politecnico di Milano", "Milan", None, "Italy"),
    ("The University of Tokyo", "Tokyo", None, "Japan"),
    ("Kyoto University", "Kyoto", None, "Japan"),
    ("Tokyo Institute of Technology", "Tokyo", None, "Japan"),
    ("KAIST", "Daejeon", None, "Korea"),
    ("Seoul National University", "Seoul", None, "Korea"),
    ("POSTECH", "Pohang", None, "Korea"),
    ("Tsinghua University", "Beijing", None, "China"),
    ("Peking University", "Beijing", None, "China"),
    ("Shanghai Jiao Tong University", "Shanghai", None, "China"),
    ("Zhejiang University", "Hangzhou", "Zhejiang", "China"),
    ("University of Science and Technology of China", "Hefei", "Anhui", "China"),
    ("Institute of Computing Technology, Chinese Academy of Sciences", "Beijing", None, "China"),
    ("Huazhong University of Science and Technology", "Wuhan", "Hubei", "China"),
    ("Nanjing University", "Nanjing", "Jiangsu", "China"),
    ("Sun Yat-sen University", "Guangzhou", "Guangdong", "China"),
    ("National University of Singapore", "Singapore", None, "Singapore"),
    ("Nanyang Technological University", "Singapore", None, "Singapore"),
    ("Indian Institute of Science", "Bangalore", "Karnataka", "India"),
    ("Indian Institute of Technology Bombay", "Mumbai", "Maharashtra", "India"),
    ("Indian Institute of Technology Madras", "Chennai", "Tamil Nadu", "India"),
    ("Technion – Israel Institute of Technology", "Haifa", None, "Israel"),
    ("Tel Aviv University", "Tel Aviv", None, "Israel"),
    ("The University of Melbourne", "Melbourne", "Victoria", "Australia"),
    ("The University of Sydney", "Sydney", "New South Wales", "Australia"),
    ("Australian National University", "Canberra", None, "Australia"),
    ("Universidade de São Paulo", "São Paulo", None, "Brazil"),
    ("Universidad de Buenos Aires", "Buenos Aires", None, "Argentina"),
    ("KTH Royal Institute of Technology", "Stockholm", None, "Sweden"),
    ("Chalmers University of Technology", "Gothenburg", None, "Sweden"),
    ("Uppsala University", "Uppsala", None, "Sweden"),
    ("Aalto University", "Espoo", None, "Finland"),
    ("Norwegian University of Science and Technology", "Trondheim", None, "Norway"),
    ("University of Copenhagen", "Copenhagen", None, "Denmark"),
    ("Delft University of Technology", "Delft", None, "Netherlands"),
    ("University of Amsterdam", "Amsterdam", None, "Netherlands"),
    ("Ghent University", "Ghent", None, "Belgium"),
    ("KU Leuven", "Leuven", None, "Belgium"),
    ("TU Wien", "Vienna", None, "Austria"),
    ("Charles University", "Prague", None, "Czech Republic"),
    ("University of Warsaw", "Warsaw", None, "Poland"),
    ("Jagiellonian University", "Kraków", None, "Poland"),
    ("University of Zagreb", "Zagreb", None, "Croatia"),
    ("University of Belgrade", "Belgrade", None, "Serbia"),
    ("Sorbonne Université", "Paris", None, "France"),
    ("École Polytechnique", "Palaiseau", None, "France"),
    ("Universidad Politécnica de Madrid", "Madrid", None, "Spain"),
    ("Universidade de Lisboa", "Lisbon", None, "Portugal"),
    ("National and Kapodistrian University of Athens", "Athens", None, "Greece"),
    ("Boğaziçi University", "Istanbul", None, "Turkey"),
    ("Lawrence Livermore National Laboratory", "Livermore", "California", "USA"),
    ("Oak Ridge National Laboratory", "Oak Ridge", "Tennessee", "USA"),
    ("Argonne National Laboratory", "Lemont", "Illinois", "USA"),
    ("Lawrence Berkeley National Laboratory", "Berkeley", "California", "USA"),
    ("Sandia National Laboratories", "Albuquerque", "New Mexico", "USA"),
    ("Los Alamos National Laboratory", "Los Alamos", "New Mexico", "USA"),
    ("Pacific Northwest National Laboratory", "Richland", "Washington", "USA"),
    ("RIKEN Center for Computational Science", "Kobe", None, "Japan"),
    ("Jülich Supercomputing Centre", "Jülich", None, "Germany"),
    ("NVIDIA", "Santa Clara", "California", "USA"),
    ("Google", "Mountain View", "California", "USA"),
    ("Google DeepMind", "London", None, "United Kingdom"),
    ("Microsoft Research", "Redmond", "Washington", "USA"),
    ("Microsoft Research Asia", "Beijing", None, "China"),
    ("Meta", "Menlo Park", "California", "USA"),
    ("Amazon Web Services", "Seattle", "Washington", "USA"),
    ("Intel Labs", "Hillsboro", "Oregon", "USA"),
    ("Advanced Micro Devices", "Santa Clara", "California", "USA"),
    ("Arm Ltd.", "Cambridge", None, "United Kingdom"),
    ("IBM T. J. Watson Research Center", "Yorktown Heights", "New York", "USA"),
    ("Huawei Technologies", "Shenzhen", "Guangdong", "China"),
    ("Alibaba Group", "Hangzhou", "Zhejiang", "China"),
    ("ByteDance", "Beijing", None, "China"),
    ("Tencent", "Shenzhen", "Guangdong", "China"),
    ("Samsung Electronics", "Suwon", None, "Korea"),
    ("Apple", "Cupertino", "California", "USA"),
    ("Qualcomm", "San Diego", "California", "USA"),
    ("Cerebras Systems", "Sunnyvale", "California", "USA"),
    ("SambaNova Systems", "Palo Alto", "California", "USA"),
    ("Graphcore", "Bristol", None, "United Kingdom"),
    ("Tenstorrent", "Toronto", "Ontario", "Canada"),
    ("Rice University", "Houston", "Texas", "USA"),
    ("Northeastern University", "Boston", "Massachusetts", "USA"),
    ("Boston University", "Boston", "Massachusetts", "USA"),
    ("University of Pennsylvania", "Philadelphia", "Pennsylvania", "USA"),
    ("Duke University", "Durham", "North Carolina", "USA"),
    ("North Carolina State University", "Raleigh", "North Carolina", "USA"),
    ("Virginia Tech", "Blacksburg", "Virginia", "USA"),
    ("University of Virginia", "Charlottesville", "Virginia", "USA"),
    ("University of Maryland", "College Park", "Maryland", "USA"),
    ("University of Utah", "Salt Lake City", "Utah", "USA"),
    ("University of Arizona", "Tucson", "Arizona", "USA"),
    ("Arizona State University", "Tempe", "Arizona", "USA"),
    ("University of Chicago", "Chicago", "Illinois", "USA"),
    ("Northwestern University", "Evanston", "Illinois", "USA"),
    ("The Ohio State University", "Columbus", "Ohio", "USA"),
    ("University of Minnesota", "Minneapolis", "Minnesota", "USA"),
    ("University of Rochester", "Rochester", "New York", "USA"),
    ("Stony Brook University", "Stony Brook", "New York", "USA"),
    ("University of Southern California", "Los Angeles", "California", "USA"),
    ("University of California, Irvine", "Irvine", "California", "USA"),
    ("University of California, Santa Barbara", "Santa Barbara", "California", "USA"),
    ("University of California, Riverside", "Riverside", "California", "USA"),
    ("University of California, Davis", "Davis", "California", "USA"),
    ("Yale University", "New Haven", "Connecticut", "USA"),
    ("Brown University", "Providence", "Rhode Island", "USA"),
    ("University of Massachusetts Amherst", "Amherst", "Massachusetts", "USA"),
    ("University of Colorado Boulder", "Boulder", "Colorado", "USA"),
    ("Texas A&M University", "College Station", "Texas", "USA"),
    ("University of Tennessee", "Knoxville", "Tennessee", "USA"),
    ("Iowa State University", "Ames", "Iowa", "USA"),
    ("The University of British Columbia", "Vancouver", "British Columbia", "Canada"),
    ("McGill University", "Montreal", "Quebec", "Canada"),
    ("University of Waterloo", "Waterloo", "Ontario", "Canada"),
    ("Université de Montréal", "Montréal", "Quebec", "Canada"),
]
DEPARTMENTS = [
    "Department of Computer Science", "Department of Electrical and Computer Engineering",
    "School of Computer Science", "Department of Computer Science and Engineering",
    "Computer Science and Artificial Intelligence Laboratory", "Dept. of EECS",
    "School of Electrical Engineering", "Department of Computer Engineering",
]

SYS_PRE = ("Flash Tile Spar Fuse Hyper Mega Quant Graph Tensor Auto Deep Meta Poly Turbo Stream "
           "Warp Cache Mem Kern Sched Prof Trace Omni Nano Micro Chip Flux Vec Loop Data Hex Neo "
           "Zero Swift Lumi Astra Orion Vela Nova Atlas Helix Echo Prism Pulse Rapid").split()
SYS_SUF = ("Flow Fuse Tune Opt Lens Scope Gen Pipe Serve Spec Mind Forge Bench Sim Scale Core "
           "Loom Weave Graph Shard Trace Prof Pilot Kit Mesh Sync Store Cast Wing Fold Stack").split()
SYS_WORDS = ("Elk Heron Osprey Marmot Puffin Ibex Lynx Otter Falcon Kestrel Wombat Narwhal Tapir "
             "Gecko Koala Panda Raven Sparrow Badger Bison Cobra Condor Dingo Egret Ferret "
             "Jackal Lemur Manta Newt Ocelot Quokka Sable Tern Vole Walrus Yak Zebu Alder Birch "
             "Cedar Cypress Hazel Juniper Larch Maple Rowan Spruce Willow Basalt Cobalt Quartz "
             "Garnet Onyx Opal Topaz Zircon Argon Neon Xenon Krypton Boreas Zephyr Tempest "
             "Cascade Glacier Summit Ridge Canyon Delta Estuary Fjord Harbor Lagoon Mesa").split()
VERBS = ("Accelerating Optimizing Scaling Profiling Characterizing Understanding Automating "
         "Rethinking Demystifying Taming Revisiting Exploiting Synthesizing Verifying Debugging "
         "Compiling Tuning Benchmarking Modeling Simulating Predicting Scheduling Partitioning "
         "Co-Designing Specializing").split()
ADJS = ["Efficient", "Scalable", "Fine-Grained", "Low-Overhead", "Portable", "Adaptive",
        "Holistic", "Lightweight", "Automated", "Cross-Platform", "Energy-Efficient",
        "Fault-Tolerant", "Learned", "Verified", "Asynchronous", "Hierarchical", "Near-Optimal",
        "Predictable", "Elastic", "Memory-Efficient", "Composable", "Practical", "Robust",
        "Sparsity-Aware", "Locality-Aware", "Topology-Aware", "Workload-Aware", "Dynamic",
        "Speculative", "Transparent", "Unified", "Heterogeneity-Aware", "Precise", "Accurate"]
OBJECTS = ["Tensor Compilers", "GPU Kernels", "Sparse Tensor Algebra", "Operator Fusion",
           "Memory Disaggregation", "Cache Coherence", "Instruction Scheduling",
           "Register Allocation", "Auto-Tuning", "Mixed-Precision Training", "LLM Inference",
           "KV Cache Management", "Collective Communication", "Pipeline Parallelism",
           "Performance Profiling", "Binary Instrumentation", "Roofline Models",
           "Dataflow Accelerators", "Systolic Arrays", "Polyhedral Optimization", "Loop Tiling",
           "Vectorization", "Warp Scheduling", "Data Prefetching", "Branch Prediction",
           "Transactional Memory", "Persistent Memory", "Sparse Matrix-Vector Multiplication",
           "Graph Neural Networks", "Attention Kernels", "Mixture-of-Experts Models",
           "Quantization", "Checkpointing", "Distributed Training", "Performance Counters",
           "Tensor Cores", "Memory Allocation", "Kernel Launch Overheads", "Code Generation",
           "Intermediate Representations", "Dynamic Shapes", "Operator Scheduling",
           "Stencil Computations", "Dense Linear Algebra", "Convolutional Neural Networks",
           "Recommendation Models", "Embedding Tables", "Near-Data Processing",
           "Processing-in-Memory", "On-Chip Networks", "Chiplet Interconnects", "Power Capping",
           "Thermal Management", "Job Scheduling", "I/O Performance", "Burst Buffers",
           "Performance Portability", "Compiler Optimizations", "Superoptimization",
           "Equality Saturation", "Program Synthesis", "Just-in-Time Compilation",
           "Garbage Collection", "Speculative Decoding", "Activation Recomputation",
           "Gradient Compression", "Model Serving", "Batching Policies", "Memory Bandwidth",
           "Trace Analysis", "Performance Anomalies", "Silent Data Corruption",
           "Hardware Simulation", "Cycle-Accurate Simulation", "Design Space Exploration",
           "Cost Models", "Sampling-Based Profiling", "Call-Path Profiling", "Data Layouts"]
TARGETS = ["Deep Learning", "Large Language Models", "Heterogeneous Systems",
           "Exascale Supercomputers", "Edge Devices", "Multi-GPU Systems", "CPU-GPU Systems",
           "ML Accelerators", "Chiplet-Based Architectures", "Serverless Platforms",
           "RISC-V Processors", "FPGAs", "Mobile SoCs", "HPC Applications", "Datacenters",
           "Scientific Workflows", "Sparse Workloads", "Transformer Models", "Cloud TPUs",
           "Wafer-Scale Engines", "Disaggregated Memory Systems", "Manycore Processors",
           "Recommendation Systems", "Graph Analytics", "Streaming Workloads",
           "Distributed Deep Learning", "Inference Serving", "Embedded Systems"]
HARDWARE = ["GPUs", "Modern GPUs", "NVIDIA Hopper GPUs", "AMD GPUs", "TPUs", "NPUs",
            "Multicore CPUs", "Arm Servers", "Intel Xeon Processors", "FPGAs", "CGRAs",
            "Spatial Accelerators", "Dataflow Architectures", "Tensor Cores", "RISC-V Vector Units",
            "Inter-Core Connected AI Chips", "Supercomputers", "Commodity Clusters",
            "Smartphones", "Microcontrollers", "HBM-Based Accelerators", "CXL Memory"]
TECHNIQUES = ["Reinforcement Learning", "Equality Saturation", "Polyhedral Analysis",
              "Symbolic Execution", "Graph Rewriting", "Learned Cost Models",
              "Bayesian Optimization", "Integer Linear Programming", "Program Slicing",
              "Static Analysis", "Dynamic Binary Translation", "Hardware Performance Counters",
              "Sampling", "Record and Replay", "Profile-Guided Optimization",
              "Multi-Level Intermediate Representations", "Search-Based Scheduling",
              "Constraint Solving", "Large Language Models", "Abstract Interpretation",
              "Differential Testing", "Fuzzing", "Analytical Modeling", "Machine Learning",
              "Trace-Driven Simulation", "Compiler-Directed Prefetching", "Software Pipelining"]
ARTIFACTS = ["Framework", "Compiler", "Runtime", "Profiler", "Simulator", "Tool", "System",
             "Library", "Benchmark Suite", "Language", "Approach", "Toolchain"]
SUBTITLES = ["An Empirical Study", "A Characterization Study", "Lessons Learned",
             "Lessons from Production", "A Retrospective", "Extended Version", "A Survey",
             "Challenges and Opportunities", "A Case Study", "Work-in-Progress",
             "Design, Implementation, and Evaluation", "Experience Report", "Invited Paper"]
QUALS = ["An Empirical Study", "A Characterization Study", "Lessons Learned", "A Quantitative Analysis",
         "Myths and Realities", "Where Does the Time Go?", "A Systematic Evaluation"]

MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August",
          "September", "October", "November", "December"]
MON3 = ["Jan.", "Feb.", "Mar.", "Apr.", "May", "Jun.", "Jul.", "Aug.", "Sep.", "Oct.", "Nov.", "Dec."]

# Conference venues.  (acronym, long name, publisher key, first year, ieee short, sponsors, month)
SIG = {
    "ARCH": "SIGARCH ACM Special Interest Group on Computer Architecture",
    "OPS": "SIGOPS ACM Special Interest Group on Operating Systems",
    "PLAN": "SIGPLAN ACM Special Interest Group on Programming Languages",
    "MICRO": "SIGMICRO ACM Special Interest Group on Microarchitectural Research and Processing",
    "HPC": "SIGHPC ACM Special Interest Group on High Performance Computing, Special Interest Group on High "
           "Performance Computing",
    "METRICS": "SIGMETRICS ACM Special Interest Group on Measurement and Evaluation",
    "BED": "SIGBED ACM Special Interest Group on Embedded Systems",
    "DA": "SIGDA ACM Special Interest Group on Design Automation",
    "MOD": "SIGMOD ACM Special Interest Group on Management of Data",
    "SOFT": "SIGSOFT ACM Special Interest Group on Software Engineering",
    "ACT": "SIGACT ACM Special Interest Group on Algorithms and Computation Theory",
    "IEEE-CS": "IEEE CS",
}
CONF_VENUES: list[tuple[str, str, str, int, str, tuple[str, ...], int]] = [
    ("ASPLOS", "ACM International Conference on Architectural Support for Programming Languages and Operating Systems",
     "acm", 1982, "Proc. Int. Conf. Architectural Support Program. Lang. Oper. Syst. (ASPLOS)", ("ARCH", "OPS", "PLAN"),
     4),
    ("PLDI", "ACM SIGPLAN International Conference on Programming Language Design and Implementation", "acm", 1980,
     "Proc. ACM SIGPLAN Conf. Program. Lang. Design Implement. (PLDI)", ("PLAN",), 6),
    ("PPoPP", "ACM SIGPLAN Annual Symposium on Principles and Practice of Parallel Programming", "acm", 1988,
     "Proc. ACM SIGPLAN Symp. Princ. Pract. Parallel Program. (PPoPP)", ("PLAN", "HPC"), 3),
    ("CC", "ACM SIGPLAN International Conference on Compiler Construction", "acm", 1991,
     "Proc. Int. Conf. Compiler Construction (CC)", ("PLAN",), 3),
    ("LCTES", "ACM SIGPLAN/SIGBED International Conference on Languages, Compilers, and Tools for Embedded Systems",
     "acm", 2000, "Proc. ACM SIGPLAN/SIGBED Int. Conf. Lang., Compilers, Tools Embedded Syst. (LCTES)", ("PLAN", "BED"),
     6),
    ("ISCA", "Annual International Symposium on Computer Architecture", "acm", 1973,
     "Proc. ACM/IEEE Int. Symp. Comput. Archit. (ISCA)", ("ARCH", "IEEE-CS"), 6),
    ("MICRO", "IEEE/ACM International Symposium on Microarchitecture", "acm", 1968,
     "Proc. IEEE/ACM Int. Symp. Microarchitecture (MICRO)", ("MICRO",), 10),
    ("SC", "International Conference for High Performance Computing, Networking, Storage and Analysis", "acm", 1988,
     "Proc. Int. Conf. High Perform. Comput., Netw., Storage Anal. (SC)", ("HPC", "IEEE-CS"), 11),
    ("ICS", "ACM International Conference on Supercomputing", "acm", 1987, "Proc. ACM Int. Conf. Supercomputing (ICS)",
     ("ARCH",), 6),
    ("EuroSys", "European Conference on Computer Systems", "acm", 2006, "Proc. Eur. Conf. Comput. Syst. (EuroSys)",
     ("OPS",), 4),
    ("SOSP", "ACM Symposium on Operating Systems Principles", "acm", 1967, "Proc. ACM Symp. Oper. Syst. Princ. (SOSP)",
     ("OPS",), 10),
    ("SoCC", "ACM Symposium on Cloud Computing", "acm", 2010, "Proc. ACM Symp. Cloud Comput. (SoCC)", ("OPS", "MOD"),
     11),
    ("HPDC", "International Symposium on High-Performance Parallel and Distributed Computing", "acm", 1992,
     "Proc. Int. Symp. High-Perform. Parallel Distrib. Comput. (HPDC)", ("ARCH", "HPC"), 6),
    ("SPAA", "ACM Symposium on Parallelism in Algorithms and Architectures", "acm", 1989,
     "Proc. ACM Symp. Parallelism Algorithms Archit. (SPAA)", ("ACT", "ARCH"), 7),
    ("PACT", "International Conference on Parallel Architectures and Compilation Techniques", "acm", 1992,
     "Proc. Int. Conf. Parallel Archit. Compilation Techn. (PACT)", ("ARCH", "IEEE-CS"), 10),
    ("ISSTA", "ACM SIGSOFT International Symposium on Software Testing and Analysis", "acm", 1989,
     "Proc. ACM SIGSOFT Int. Symp. Softw. Test. Anal. (ISSTA)", ("SOFT",), 7),
    ("HPCA", "IEEE International Symposium on High-Performance Computer Architecture", "ieee", 1995,
     "Proc. IEEE Int. Symp. High-Perform. Comput. Archit. (HPCA)", (), 3),
    ("ISPASS", "IEEE International Symposium on Performance Analysis of Systems and Software", "ieee", 2000,
     "Proc. IEEE Int. Symp. Perform. Anal. Syst. Softw. (ISPASS)", (), 5),
    ("IISWC", "IEEE International Symposium on Workload Characterization", "ieee", 2005,
     "Proc. IEEE Int. Symp. Workload Characterization (IISWC)", (), 10),
    ("IPDPS", "IEEE International Parallel and Distributed Processing Symposium", "ieee", 1987,
     "Proc. IEEE Int. Parallel Distrib. Process. Symp. (IPDPS)", (), 5),
    ("CLUSTER", "IEEE International Conference on Cluster Computing", "ieee", 1999,
     "Proc. IEEE Int. Conf. Cluster Comput. (CLUSTER)", (), 9),
    ("CGO", "IEEE/ACM International Symposium on Code Generation and Optimization", "ieee", 2003,
     "Proc. IEEE/ACM Int. Symp. Code Gener. Optim. (CGO)", (), 2),
    ("DAC", "ACM/IEEE Design Automation Conference", "ieee", 1964, "Proc. ACM/IEEE Design Autom. Conf. (DAC)", (), 6),
    ("ICCAD", "IEEE/ACM International Conference on Computer Aided Design", "ieee", 1982,
     "Proc. IEEE/ACM Int. Conf. Comput.-Aided Design (ICCAD)", (), 11),
    ("HiPC", "IEEE International Conference on High Performance Computing, Data, and Analytics", "ieee", 1994,
     "Proc. IEEE Int. Conf. High Perform. Comput., Data, Analytics (HiPC)", (), 12),
    ("IPDPSW", "IEEE International Parallel and Distributed Processing Symposium Workshops", "ieee", 1987,
     "Proc. IEEE Int. Parallel Distrib. Process. Symp. Workshops (IPDPSW)", (), 5),
    ("Euro-Par", "Euro-Par: Parallel Processing", "springer", 1995, "Proc. Eur. Conf. Parallel Process. (Euro-Par)", (),
     8),
    ("ISC", "ISC High Performance", "springer", 1986, "Proc. ISC High Perform. (ISC)", (), 6),
    ("LCPC", "Languages and Compilers for Parallel Computing", "springer", 1988,
     "Proc. Int. Workshop Lang. Compilers Parallel Comput. (LCPC)", (), 10),
]
# venues that only appear in cited works (no DOI or pseudo-DOI)
CITED_ONLY_VENUES: list[tuple[str, str, str, int, str]] = [
    ("OSDI", "USENIX Symposium on Operating Systems Design and Implementation", "usenix", 1994,
     "Proc. USENIX Symp. Oper. Syst. Design Implement. (OSDI)"),
    ("ATC", "USENIX Annual Technical Conference", "usenix", 1995, "Proc. USENIX Annu. Tech. Conf. (ATC)"),
    ("NSDI", "USENIX Symposium on Networked Systems Design and Implementation", "usenix", 2004,
     "Proc. USENIX Symp. Netw. Syst. Design Implement. (NSDI)"),
    ("FAST", "USENIX Conference on File and Storage Technologies", "usenix", 2002,
     "Proc. USENIX Conf. File Storage Technol. (FAST)"),
    ("NeurIPS", "Advances in Neural Information Processing Systems", "neurips", 1987,
     "Proc. Adv. Neural Inf. Process. Syst. (NeurIPS)"),
    ("ICML", "International Conference on Machine Learning", "pmlr", 1984, "Proc. Int. Conf. Mach. Learn. (ICML)"),
    ("ICLR", "International Conference on Learning Representations", "openreview", 2013,
     "Proc. Int. Conf. Learn. Represent. (ICLR)"),
    ("MLSys", "Proceedings of Machine Learning and Systems", "mlsys", 2019, "Proc. Mach. Learn. Syst. (MLSys)"),
    ("VLDB", "Proceedings of the VLDB Endowment", "vldb", 1975, "Proc. VLDB Endow."),
]
# journals: (full, iso abbrev, ieee abbrev, publisher key, first year, doi code)
JOURNALS: list[tuple[str, str, str, str, int, str]] = [
    ("ACM Transactions on Architecture and Code Optimization", "ACM Trans. Archit. Code Optim.",
     "ACM Trans. Archit. Code Optim.", "acm", 2004, "TACO"),
    ("ACM Transactions on Programming Languages and Systems", "ACM Trans. Program. Lang. Syst.",
     "ACM Trans. Program. Lang. Syst.", "acm", 1979, "TOPLAS"),
    ("ACM Transactions on Computer Systems", "ACM Trans. Comput. Syst.", "ACM Trans. Comput. Syst.", "acm", 1983,
     "TOCS"),
    ("ACM Computing Surveys", "ACM Comput. Surv.", "ACM Comput. Surv.", "acm", 1969, "CSUR"),
    ("ACM Transactions on Embedded Computing Systems", "ACM Trans. Embed. Comput. Syst.",
     "ACM Trans. Embed. Comput. Syst.", "acm", 2002, "TECS"),
    ("Proceedings of the ACM on Programming Languages", "Proc. ACM Program. Lang.", "Proc. ACM Program. Lang.", "acm",
     2017, "PACMPL"),
    ("ACM Transactions on Parallel Computing", "ACM Trans. Parallel Comput.", "ACM Trans. Parallel Comput.", "acm",
     2014, "TOPC"),
    ("ACM Transactions on Reconfigurable Technology and Systems", "ACM Trans. Reconfigurable Technol. Syst.",
     "ACM Trans. Reconfigurable Technol. Syst.", "acm", 2008, "TRETS"),
    ("Communications of the ACM", "Commun. ACM", "Commun. ACM", "acm", 1958, "CACM"),
    ("ACM Transactions on Mathematical Software", "ACM Trans. Math. Softw.", "ACM Trans. Math. Softw.", "acm", 1975,
     "TOMS"),
    ("IEEE Transactions on Parallel and Distributed Systems", "IEEE Trans. Parallel Distrib. Syst.",
     "IEEE Trans. Parallel Distrib. Syst.", "ieee", 1990, "TPDS"),
    ("IEEE Transactions on Computers", "IEEE Trans. Comput.", "IEEE Trans. Comput.", "ieee", 1968, "TC"),
    ("IEEE Micro", "IEEE Micro", "IEEE Micro", "ieee", 1981, "MM"),
    ("IEEE Computer Architecture Letters", "IEEE Comput. Arch. Lett.", "IEEE Comput. Archit. Lett.", "ieee", 2002,
     "LCA"),
    ("IEEE Transactions on Computer-Aided Design of Integrated Circuits and Systems",
     "IEEE Trans. Comput.-Aided Des. Integr. Circuits Syst.", "IEEE Trans. Comput.-Aided Design Integr. Circuits Syst.",
     "ieee", 1982, "TCAD"),
    ("Computing in Science & Engineering", "Comput. Sci. Eng.", "Comput. Sci. Eng.", "ieee", 1999, "MCSE"),
    ("IEEE Transactions on Software Engineering", "IEEE Trans. Softw. Eng.", "IEEE Trans. Softw. Eng.", "ieee", 1975,
     "TSE"),
    ("IEEE Access", "IEEE Access", "IEEE Access", "ieee", 2013, "ACCESS"),
    ("The Journal of Supercomputing", "J Supercomput", "J. Supercomput.", "springer", 1987, "11227"),
    ("International Journal of Parallel Programming", "Int J Parallel Prog", "Int. J. Parallel Program.", "springer",
     1972, "10766"),
    ("Cluster Computing", "Cluster Comput", "Cluster Comput.", "springer", 1998, "10586"),
    ("Journal of Parallel and Distributed Computing", "Journal of Parallel and Distributed Computing",
     "J. Parallel Distrib. Comput.", "elsevier", 1984, "jpdc"),
    ("Future Generation Computer Systems", "Future Generation Computer Systems", "Future Gener. Comput. Syst.",
     "elsevier", 1984, "future"),
    ("Parallel Computing", "Parallel Computing", "Parallel Comput.", "elsevier", 1984, "parco"),
    ("Journal of Systems Architecture", "Journal of Systems Architecture", "J. Syst. Archit.", "elsevier", 1996,
     "sysarc"),
]
SUBJECTS = {
    "acm": [["Hardware and Architecture", "Information Systems", "Software"],
            ["Software"], ["General Computer Science", "Theoretical Computer Science"],
            ["Computer Science Applications", "Hardware and Architecture", "Software"]],
    "ieee": [["Computational Theory and Mathematics", "Hardware and Architecture", "Theoretical Computer Science",
              "Software"],
             ["Hardware and Architecture", "Electrical and Electronic Engineering"],
             ["General Engineering", "General Materials Science", "General Computer Science"]],
    "springer": [["Hardware and Architecture", "Information Systems", "Theoretical Computer Science", "Software"],
                 ["Computer Networks and Communications", "Software"]],
    "elsevier": [["Artificial Intelligence", "Computer Networks and Communications", "Hardware and Architecture",
                  "Software", "Theoretical Computer Science"],
                 ["Computer Networks and Communications", "Hardware and Architecture", "Software"]],
}
LOCATIONS_ACM = ["New York NY USA", "Online USA", "Seoul Korea", "La Jolla CA USA", "Vancouver BC Canada",
                 "Rotterdam Netherlands", "Athens Greece", "Lausanne Switzerland", "Orlando FL USA",
                 "San Diego CA USA", "Denver CO USA", "Salt Lake City UT USA", "Edinburgh United Kingdom",
                 "Montreal QC Canada", "Koblenz Germany", "Hong Kong Hong Kong", "Kyoto Japan",
                 "Atlanta GA USA", "Chicago IL USA", "Austin TX USA", "Seattle WA USA", "Porto Portugal",
                 "Melbourne VIC Australia", "Copenhagen Denmark", "Singapore Singapore"]
LOCATIONS_IEEE = ["Sydney, Australia", "Edinburgh, United Kingdom", "Seoul, Korea, Republic of",
                  "Chicago, IL, USA", "Las Vegas, NV, USA", "Montreal, QC, Canada", "Lyon, France",
                  "San Francisco, CA, USA", "Milan, Italy", "Austin, TX, USA", "Hong Kong, China",
                  "Kobe, Japan", "Raleigh, NC, USA", "Virtual Event", "Bangalore, India",
                  "Las Palmas de Gran Canaria, Spain", "Santa Fe, NM, USA", "Vienna, Austria"]
FUNDERS = [
    ("10.13039/100000001", "NSF (National Science Foundation)", "nsf"),
    ("10.13039/100000001", "National Science Foundation", "nsf"),
    ("10.13039/100000015", "U.S. Department of Energy", "doe"),
    ("10.13039/100006132", "Office of Science", "doe"),
    ("10.13039/100000185", "Defense Advanced Research Projects Agency", "darpa"),
    ("10.13039/501100000781", "European Research Council", "erc"),
    ("10.13039/501100001809", "National Natural Science Foundation of China", "nsfc"),
    ("10.13039/501100001659", "Deutsche Forschungsgemeinschaft", "dfg"),
    ("10.13039/501100000266", "Engineering and Physical Sciences Research Council", "epsrc"),
    ("10.13039/501100001691", "Japan Society for the Promotion of Science", "jsps"),
    ("10.13039/501100000038", "Natural Sciences and Engineering Research Council of Canada", "nserc"),
    ("10.13039/501100003725", "National Research Foundation of Korea", "nrf"),
    ("10.13039/100006785", "Google", "ind"),
    ("10.13039/100002418", "Intel Corporation", "ind"),
    ("10.13039/100007065", "NVIDIA", "ind"),
    ("10.13039/501100007601", "Horizon 2020", "eu"),
    ("10.13039/501100004837", "Ministerio de Ciencia e Innovación", "es"),
    (None, "Semiconductor Research Corporation", "src"),
    (None, "Exascale Computing Project", "ecp"),
    (None, "Samsung Advanced Institute of Technology", "ind"),
    (None, "ACE, one of the seven centers in JUMP 2.0", "src"),
]
ORG_AUTHORS = ["MLCommons Association", "The OpenXLA Community", "NVIDIA Corporation",
               "Exascale Computing Project Team", "The Gemma Team", "LLVM Developer Community",
               "The PyTorch Team", "TOP500 Consortium", "Open Compute Project", "RISC-V International"]

# ~100 software tools: (name, organisation, url, first year)
TOOLS: list[tuple[str, str, str, int]] = [
    ("TensorFlow", "Google", "https://www.tensorflow.org/", 2015),
    ("PyTorch", "PyTorch", "https://pytorch.org/", 2016),
    ("PyTorch Profiler", "PyTorch", "https://pytorch.org/tutorials/recipes/recipes/profiler_recipe.html", 2021),
    ("TensorFlow Profiler", "Google", "https://www.tensorflow.org/guide/profiler", 2020),
    ("JAX", "Google", "https://github.com/jax-ml/jax", 2018),
    ("XLA", "OpenXLA", "https://openxla.org/xla", 2017),
    ("TVM", "Apache Software Foundation", "https://tvm.apache.org/", 2018),
    ("LLVM", "LLVM Foundation", "https://llvm.org", 2003),
    ("MLIR", "LLVM Foundation", "https://mlir.llvm.org/", 2019),
    ("Clang", "LLVM Foundation", "https://clang.llvm.org/", 2007),
    ("GCC, the GNU Compiler Collection", "Free Software Foundation", "https://gcc.gnu.org/", 1987),
    ("Triton", "OpenAI", "https://triton-lang.org/", 2021),
    ("CUDA Toolkit", "NVIDIA", "https://developer.nvidia.com/cuda-toolkit", 2007),
    ("CUDA C++ Programming Guide", "NVIDIA", "https://docs.nvidia.com/cuda/cuda-c-programming-guide/", 2008),
    ("cuDNN", "NVIDIA", "https://developer.nvidia.com/cudnn", 2014),
    ("cuBLAS", "NVIDIA", "https://docs.nvidia.com/cuda/cublas/", 2008),
    ("CUTLASS", "NVIDIA", "https://github.com/NVIDIA/cutlass", 2017),
    ("NCCL", "NVIDIA", "https://developer.nvidia.com/nccl", 2016),
    ("Nsight Systems", "NVIDIA", "https://developer.nvidia.com/nsight-systems", 2018),
    ("Nsight Compute", "NVIDIA", "https://docs.nvidia.com/nsight-compute/", 2018),
    ("CUDA Profiling Tools Interface (CUPTI)", "NVIDIA", "https://docs.nvidia.com/cupti/", 2010),
    ("nvprof", "NVIDIA", "https://docs.nvidia.com/cuda/profiler-users-guide/", 2012),
    ("TensorRT", "NVIDIA", "https://developer.nvidia.com/tensorrt", 2017),
    ("Compute Sanitizer", "NVIDIA", "https://docs.nvidia.com/compute-sanitizer/", 2020),
    ("NVBit", "NVIDIA", "https://github.com/NVlabs/NVBit", 2019),
    ("Parallel Thread Execution ISA", "NVIDIA", "https://docs.nvidia.com/cuda/parallel-thread-execution/", 2009),
    ("ROCm", "AMD", "https://rocm.docs.amd.com/", 2016),
    ("rocprof", "AMD", "https://rocm.docs.amd.com/projects/rocprofiler/en/latest/", 2018),
    ("Omniperf", "AMD", "https://rocm.docs.amd.com/projects/omniperf/en/latest/", 2022),
    ("HIP", "AMD", "https://rocm.docs.amd.com/projects/HIP/en/latest/", 2016),
    ("MIOpen", "AMD", "https://github.com/ROCm/MIOpen", 2017),
    ("AMD uProf", "AMD", "https://www.amd.com/en/developer/uprof.html", 2018),
    ("VTune Profiler", "Intel", "https://www.intel.com/content/www/us/en/developer/tools/oneapi/vtune-profiler.html",
     2008),
    ("Intel Advisor", "Intel", "https://www.intel.com/content/www/us/en/developer/tools/oneapi/advisor.html", 2012),
    ("oneDNN", "Intel", "https://github.com/oneapi-src/oneDNN", 2016),
    ("oneAPI", "Intel", "https://www.intel.com/content/www/us/en/developer/tools/oneapi/overview.html", 2019),
    ("Pin", "Intel",
     "https://www.intel.com/content/www/us/en/developer/articles/tool/pin-a-dynamic-binary-instrumentation-tool.html",
     2005),
    ("Software Development Emulator", "Intel",
     "https://www.intel.com/content/www/us/en/developer/articles/tool/software-development-emulator.html", 2010),
    ("gem5", "gem5 Project", "https://www.gem5.org/", 2011),
    ("Valgrind", "Valgrind Developers", "https://valgrind.org/", 2002),
    ("DynamoRIO", "DynamoRIO", "https://dynamorio.org/", 2002),
    ("PAPI", "Innovative Computing Laboratory", "https://icl.utk.edu/papi/", 2000),
    ("HPCToolkit", "Rice University", "http://hpctoolkit.org/", 2008),
    ("perf: Linux profiling with performance counters", "Linux Kernel Organization", "https://perf.wiki.kernel.org/",
     2009),
    ("eBPF", "eBPF Foundation", "https://ebpf.io/", 2014),
    ("bpftrace", "IO Visor", "https://github.com/bpftrace/bpftrace", 2018),
    ("Open Neural Network Exchange format", "ONNX", "https://onnx.ai/", 2017),
    ("ONNX Runtime", "Microsoft", "https://onnxruntime.ai/", 2018),
    ("DeepSpeed", "Microsoft", "https://www.deepspeed.ai/", 2020),
    ("Megatron-LM", "NVIDIA", "https://github.com/NVIDIA/Megatron-LM", 2019),
    ("vLLM", "vLLM Project", "https://docs.vllm.ai/", 2023),
    ("SGLang", "LMSYS", "https://github.com/sgl-project/sglang", 2024),
    ("TensorRT-LLM", "NVIDIA", "https://github.com/NVIDIA/TensorRT-LLM", 2023),
    ("Transformers", "Hugging Face", "https://huggingface.co/docs/transformers", 2019),
    ("Halide", "Halide Project", "https://halide-lang.org/", 2012),
    ("GPGPU-Sim", "GPGPU-Sim", "http://www.gpgpu-sim.org/", 2009),
    ("Accel-Sim", "Accel-Sim", "https://accel-sim.github.io/", 2020),
    ("Timeloop", "NVIDIA", "https://timeloop.csail.mit.edu/", 2019),
    ("Accelergy", "MIT", "https://accelergy.mit.edu/", 2019),
    ("SCALE-Sim", "Georgia Institute of Technology", "https://github.com/scalesim-project/scale-sim-v2", 2019),
    ("MLPerf Inference Benchmark", "MLCommons", "https://mlcommons.org/benchmarks/inference-datacenter/", 2019),
    ("MLPerf Training Benchmark", "MLCommons", "https://mlcommons.org/benchmarks/training/", 2019),
    ("SPEC CPU 2017", "Standard Performance Evaluation Corporation", "https://www.spec.org/cpu2017/", 2017),
    ("Rodinia Benchmark Suite", "University of Virginia", "https://rodinia.cs.virginia.edu/", 2009),
    ("PolyBench/C", "Ohio State University", "https://sourceforge.net/projects/polybench/", 2010),
    ("OpenMP Application Programming Interface", "OpenMP Architecture Review Board", "https://www.openmp.org/", 1997),
    ("OpenACC", "OpenACC Organization", "https://www.openacc.org/", 2011),
    ("OpenCL", "Khronos Group", "https://www.khronos.org/opencl/", 2009),
    ("SYCL", "Khronos Group", "https://www.khronos.org/sycl/", 2014),
    ("Vulkan", "Khronos Group", "https://www.vulkan.org/", 2016),
    ("SPIR-V", "Khronos Group", "https://www.khronos.org/spir/", 2015),
    ("Kokkos", "Sandia National Laboratories", "https://kokkos.org/", 2014),
    ("RAJA", "Lawrence Livermore National Laboratory", "https://github.com/LLNL/RAJA", 2016),
    ("Caliper", "Lawrence Livermore National Laboratory", "https://github.com/LLNL/Caliper", 2016),
    ("Score-P", "VI-HPS", "https://www.vi-hps.org/projects/score-p/", 2011),
    ("TAU Performance System", "University of Oregon", "https://www.cs.uoregon.edu/research/tau/", 2006),
    ("Scalasca", "Jülich Supercomputing Centre", "https://www.scalasca.org/", 2008),
    ("Open MPI", "Open MPI Project", "https://www.open-mpi.org/", 2004),
    ("MPICH", "Argonne National Laboratory", "https://www.mpich.org/", 2001),
    ("Slurm Workload Manager", "SchedMD", "https://slurm.schedmd.com/", 2003),
    ("Kubernetes", "Cloud Native Computing Foundation", "https://kubernetes.io/", 2014),
    ("Ray", "Anyscale", "https://www.ray.io/", 2017),
    ("Horovod", "LF AI & Data Foundation", "https://horovod.ai/", 2017),
    ("Apache Spark", "Apache Software Foundation", "https://spark.apache.org/", 2014),
    ("Numba", "Anaconda", "https://numba.pydata.org/", 2012),
    ("NumPy", "NumPy Developers", "https://numpy.org/", 2006),
    ("Cerebras SDK", "Cerebras", "https://sdk.cerebras.net/", 2022),
    ("Poplar SDK", "Graphcore", "https://docs.graphcore.ai/", 2018),
    ("AWS Neuron SDK", "Amazon Web Services", "https://awsdocs-neuron.readthedocs-hosted.com/", 2019),
    ("Cloud TPU Documentation", "Google", "https://cloud.google.com/tpu/docs", 2018),
    ("Chisel", "UC Berkeley", "https://www.chisel-lang.org/", 2012),
    ("Verilator", "Veripool", "https://www.veripool.org/verilator/", 2004),
    ("FireSim", "UC Berkeley", "https://fires.im/", 2018),
    ("Ramulator 2.0", "SAFARI Research Group", "https://github.com/CMU-SAFARI/ramulator2", 2023),
    ("DRAMsim3", "University of Maryland", "https://github.com/umd-memsys/DRAMsim3", 2019),
    ("McPAT", "Hewlett Packard Enterprise", "https://github.com/HewlettPackard/mcpat", 2009),
    ("CACTI", "Hewlett Packard Enterprise", "https://github.com/HewlettPackard/cacti", 2008),
    ("LIKWID", "Erlangen National High Performance Computing Center", "https://github.com/RRZE-HPC/likwid", 2010),
    ("Linaro Forge", "Linaro", "https://www.linaroforge.com/", 2023),
    ("Tensor Comprehensions", "Facebook AI Research", "https://facebookresearch.github.io/TensorComprehensions/", 2018),
    ("torch.compile", "PyTorch", "https://pytorch.org/docs/stable/torch.compiler.html", 2022),
    ("IREE", "OpenXLA", "https://iree.dev/", 2019),
    ("Mojo", "Modular", "https://docs.modular.com/mojo/", 2023),
    ("CompilerGym", "Meta", "https://compilergym.com/", 2021),
    ("FlashAttention", "Dao-AILab", "https://github.com/Dao-AILab/flash-attention", 2022),
]
# well-known tool papers placed at popular ranks of the cited-work pool
# (title, year, venue acronym or journal code, author list "Given Family; ...")
TOOL_PAPERS: list[tuple[str, int, str, str]] = [
    ("TVM: An Automated End-to-End Optimizing Compiler for Deep Learning", 2018, "OSDI",
     "Tianqi Chen; Thierry Moreau; Ziheng Jiang; Lianmin Zheng; Eddie Yan; Meghan Cowan; Haichen Shen; Leyuan Wang; "
     "Yuwei Hu; Luis Ceze; Carlos Guestrin; Arvind Krishnamurthy"),
    ("TensorFlow: A System for Large-Scale Machine Learning", 2016, "OSDI",
     "Martín Abadi; Paul Barham; Jianmin Chen; Zhifeng Chen; Andy Davis; Jeffrey Dean; Matthieu Devin; Sanjay "
     "Ghemawat; Geoffrey Irving; Michael Isard"),
    ("PyTorch: An Imperative Style, High-Performance Deep Learning Library", 2019, "NeurIPS",
     "Adam Paszke; Sam Gross; Francisco Massa; Adam Lerer; James Bradbury; Gregory Chanan; Trevor Killeen; Zeming Lin; "
     "Natalia Gimelshein; Luca Antiga"),
    ("LLVM: A Compilation Framework for Lifelong Program Analysis & Transformation", 2004, "CGO",
     "Chris Lattner; Vikram Adve"),
    ("MLIR: Scaling Compiler Infrastructure for Domain Specific Computation", 2021, "CGO",
     "Chris Lattner; Mehdi Amini; Uday Bondhugula; Albert Cohen; Andy Davis; Jacques Pienaar; River Riddle; Tatiana "
     "Shpeisman; Nicolas Vasilache; Oleksandr Zinenko"),
    ("Halide: A Language and Compiler for Optimizing Parallelism, Locality, and Recomputation in Image Processing "
     "Pipelines", 2013, "PLDI", "Jonathan Ragan-Kelley; Connelly Barnes; Andrew Adams; Sylvain Paris; Frédo Durand; "
                                "Saman Amarasinghe"),
    ("The gem5 Simulator", 2011, "CAN",
     "Nathan Binkert; Bradford Beckmann; Gabriel Black; Steven K. Reinhardt; Ali Saidi; Arkaprava Basu; Joel Hestness; "
     "Derek R. Hower; Tushar Krishna"),
    ("Valgrind: A Framework for Heavyweight Dynamic Binary Instrumentation", 2007, "PLDI",
     "Nicholas Nethercote; Julian Seward"),
    ("Pin: Building Customized Program Analysis Tools with Dynamic Instrumentation", 2005, "PLDI",
     "Chi-Keung Luk; Robert Cohn; Robert Muth; Harish Patil; Artur Klauser; Geoff Lowney; Steven Wallace; Vijay Janapa "
     "Reddi; Kim Hazelwood"),
    ("Analyzing CUDA Workloads Using a Detailed GPU Simulator", 2009, "ISPASS",
     "Ali Bakhoda; George L. Yuan; Wilson W. L. Fung; Henry Wong; Tor M. Aamodt"),
    ("Accel-Sim: An Extensible Simulation Framework for Validated GPU Modeling", 2020, "ISCA",
     "Mahmoud Khairy; Zhesheng Shen; Tor M. Aamodt; Timothy G. Rogers"),
    ("NVBit: A Dynamic Binary Instrumentation Framework for NVIDIA GPUs", 2019, "MICRO",
     "Oreste Villa; Mark Stephenson; David Nellans; Stephen W. Keckler"),
    ("HPCToolkit: Tools for Performance Analysis of Optimized Parallel Programs", 2010, "CCPE",
     "Laksono Adhianto; Sinchan Banerjee; Mike Fagan; Mark Krentel; Gabriel Marin; John Mellor-Crummey; Nathan R. "
     "Tallent"),
    ("Triton: An Intermediate Language and Compiler for Tiled Neural Network Computations", 2019, "PLDI",
     "Philippe Tillet; H. T. Kung; David Cox"),
    ("Efficient Memory Management for Large Language Model Serving with PagedAttention", 2023, "SOSP",
     "Woosuk Kwon; Zhuohan Li; Siyuan Zhuang; Ying Sheng; Lianmin Zheng; Cody Hao Yu; Joseph E. Gonzalez; Hao Zhang; "
     "Ion Stoica"),
    ("FlashAttention: Fast and Memory-Efficient Exact Attention with IO-Awareness", 2022, "NeurIPS",
     "Tri Dao; Daniel Y. Fu; Stefano Ermon; Atri Rudra; Christopher Ré"),
    ("Timeloop: A Systematic Approach to DNN Accelerator Evaluation", 2019, "ISPASS",
     "Angshuman Parashar; Priyanka Raina; Yakun Sophia Shao; Yu-Hsin Chen; Victor A. Ying; Anurag Mukkara; Rangharajan "
     "Venkatesan; Brucek Khailany; Stephen W. Keckler; Joel Emer"),
    ("Rodinia: A Benchmark Suite for Heterogeneous Computing", 2009, "IISWC",
     "Shuai Che; Michael Boyer; Jiayuan Meng; David Tarjan; Jeremy W. Sheaffer; Sang-Ha Lee; Kevin Skadron"),
    ("McPAT: An Integrated Power, Area, and Timing Modeling Framework for Multicore and Manycore Architectures", 2009,
     "MICRO", "Sheng Li; Jung Ho Ahn; Richard D. Strong; Jay B. Brockman; Dean M. Tullsen; Norman P. Jouppi"),
    ("Kokkos: Enabling Manycore Performance Portability through Polymorphic Memory Access Patterns", 2014, "jpdc",
     "H. Carter Edwards; Christian R. Trott; Daniel Sunderland"),
    ("Roofline: An Insightful Visual Performance Model for Multicore Architectures", 2009, "CACM",
     "Samuel Williams; Andrew Waterman; David Patterson"),
    ("Ansor: Generating High-Performance Tensor Programs for Deep Learning", 2020, "OSDI",
     "Lianmin Zheng; Chengfan Jia; Minmin Sun; Zhao Wu; Cody Hao Yu; Ameer Haj-Ali; Yida Wang; Jun Yang; Danyang Zhuo; "
     "Koushik Sen; Joseph E. Gonzalez; Ion Stoica"),
    ("Megatron-LM: Training Multi-Billion Parameter Language Models Using Model Parallelism", 2019, "arXiv",
     "Mohammad Shoeybi; Mostofa Patwary; Raul Puri; Patrick LeGresley; Jared Casper; Bryan Catanzaro"),
    ("ZeRO: Memory Optimizations Toward Training Trillion Parameter Models", 2020, "SC",
     "Samyam Rajbhandari; Jeff Rasley; Olatunji Ruwase; Yuxiong He"),
    ("In-Datacenter Performance Analysis of a Tensor Processing Unit", 2017, "ISCA",
     "Norman P. Jouppi; Cliff Young; Nishant Patil; David Patterson; Gaurav Agrawal; Raminder Bajwa; Sarah Bates; "
     "Suresh Bhatia; Nan Boden; Al Borchers"),
    ("Attention Is All You Need", 2017, "NeurIPS",
     "Ashish Vaswani; Noam Shazeer; Niki Parmar; Jakob Uszkoreit; Llion Jones; Aidan N. Gomez; Łukasz Kaiser; Illia "
     "Polosukhin"),
    ("Language Models are Few-Shot Learners", 2020, "NeurIPS",
     "Tom Brown; Benjamin Mann; Nick Ryder; Melanie Subbiah; Jared D Kaplan; Prafulla Dhariwal; Arvind Neelakantan; "
     "Pranav Shyam; Girish Sastry; Amanda Askell"),
    ("Mixed Precision Training", 2018, "ICLR",
     "Paulius Micikevicius; Sharan Narang; Jonah Alben; Gregory Diamos; Erich Elsen; David Garcia; Boris Ginsburg; "
     "Michael Houston; Oleksii Kuchaiev; Ganesh Venkatesh; Hao Wu"),
    ("GPipe: Efficient Training of Giant Neural Networks using Pipeline Parallelism", 2019, "NeurIPS",
     "Yanping Huang; Youlong Cheng; Ankur Bapna; Orhan Firat; Mia Xu Chen; Dehao Chen; HyoukJoong Lee; Jiquan Ngiam; "
     "Quoc V. Le; Yonghui Wu; Zhifeng Chen"),
    ("Tensor Comprehensions: Framework-Agnostic High-Performance Machine Learning Abstractions", 2018, "arXiv",
     "Nicolas Vasilache; Oleksandr Zinenko; Theodoros Theodoridis; Priya Goyal; Zachary DeVito; William S. Moses; Sven "
     "Verdoolaege; Andrew Adams; Albert Cohen"),
    ("The Scalasca Performance Toolset Architecture", 2010, "CCPE",
     "Markus Geimer; Felix Wolf; Brian J. N. Wylie; Erika Ábrahám; Daniel Becker; Bernd Mohr"),
    ("Ramulator: A Fast and Extensible DRAM Simulator", 2016, "LCA", "Yoongu Kim; Weikun Yang; Onur Mutlu"),
]

# --------------------------------------------------------------------------
# small helpers
# --------------------------------------------------------------------------


def orcid_check_digit(base15: str) -> str:
    """ISO 7064 MOD 11-2 check character for the 15 base digits of an ORCID iD."""
    total = 0
    for ch in base15:
        total = (total + int(ch)) * 2
    r = (12 - total % 11) % 11
    return "X" if r == 10 else str(r)


def issn_check_digit(base7: str) -> str:
    s = sum(int(c) * w for c, w in zip(base7, range(8, 1, -1), strict=True))
    r = (11 - s % 11) % 11
    return "X" if r == 10 else str(r)


def isbn13_check_digit(base12: str) -> str:
    s = sum(int(c) * (1 if n % 2 == 0 else 3) for n, c in enumerate(base12))
    return str((10 - s % 10) % 10)


CROCKFORD = "0123456789abcdefghjkmnpqrstvwxyz"


def ror_id(r: Random) -> str:
    body = "0" + "".join(pick(r, CROCKFORD) for _ in range(6))
    n = 0
    for ch in body:
        n = n * 32 + CROCKFORD.index(ch)
    return f"https://ror.org/{body}{98 - (n * 100) % 97:02d}"


def ordinal(n: int) -> str:
    if 10 <= n % 100 <= 20:
        return f"{n}th"
    return f"{n}{ {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th') }"


def sentence_case(t: str) -> str:
    low = t.lower()
    out = low[:1].upper() + low[1:]
    p = out.find(": ")
    if p > 0 and p + 2 < len(out):
        out = out[: p + 2] + out[p + 2].upper() + out[p + 3:]
    return out


def slug(t: str) -> str:
    out = []
    for ch in t.lower():
        if ch.isascii() and ch.isalnum():
            out.append(ch)
        elif out and out[-1] != "-":
            out.append("-")
    return "".join(out).strip("-")[:60]


def ymd(o: int) -> tuple[int, int, int]:
    d = date.fromordinal(o)
    return d.year, d.month, d.day


def date_parts(o: int, precision: int = 3) -> dict[str, Any]:
    y, m, d = ymd(o)
    dp = [y, m, d][:precision]
    return {"date-parts": [dp]}


def stamped(o: int, secs: int, ms: int = 0) -> dict[str, Any]:
    y, m, d = ymd(o)
    h, rem = divmod(secs, 3600)
    mi, s = divmod(rem, 60)
    return {
        "date-parts": [[y, m, d]],
        "date-time": f"{y:04d}-{m:02d}-{d:02d}T{h:02d}:{mi:02d}:{s:02d}Z",
        "timestamp": ((o - EPOCH_ORD) * 86400 + secs) * 1000 + ms,
    }


def zipf_cum(n: int, s: float, q: float) -> list[float]:
    return list(accumulate(1.0 / (k + q) ** s for k in range(n)))


def weighted(r: Random, cum: list[float]) -> int:
    return bisect_right(cum, r.random() * cum[-1])


def cum_of(weights: list[float]) -> list[float]:
    return list(accumulate(weights))


def pick(r: Random, seq: Any) -> Any:
    """Uniform choice from a sequence (cheaper than Random.choice)."""
    return seq[int(r.random() * len(seq))]


def system_name(r: Random) -> str:
    x = r.random()
    if x < 0.45:
        return pick(r, SYS_PRE) + pick(r, SYS_SUF)
    if x < 0.75:
        return pick(r, SYS_WORDS)
    n = pick(r, (3, 4, 4, 5, 5, 6))
    return "".join(chr(65 + int(r.random() * 26)) for _ in range(n))


#: --shape two-families: most records' titles name a side of the headline question (a profiling or a compiler paper),
#: so that both sides hold thousands of papers (the default shape spreads records over every topic family)
SHAPE = "default"
FAMILY_SHARE = 0.9
FAMILY_TITLES = (
    ("A Profiler for GPU Kernels", "Profiling Tool Support for Accelerators", "Performance Profiling of Training Jobs",
     "Call Path Profiling at Scale", "Low-Overhead Profiler Design"),
    ("A Compiler for Tensor Programs", "Compiler Optimization of Loop Nests", "An Optimizing Compiler for Accelerators",
     "Compiler Support for Sparse Kernels", "Retargetable Compiler Backends"),
)


def make_title(r: Random) -> str:
    x = r.random()
    rr = r.random

    def ch(seq: Any) -> Any:
        return seq[int(rr() * len(seq))]

    if x < 0.16:
        return f"{system_name(r)}: {ch(ADJS)} {ch(OBJECTS)} for {ch(TARGETS)}"
    if x < 0.30:
        return f"{system_name(r)}: {ch(VERBS)} {ch(OBJECTS)} {ch(('on', 'for', 'in'))} {ch(HARDWARE)}"
    if x < 0.42:
        return f"{ch(VERBS)} {ch(OBJECTS)} {ch(('for', 'in', 'on'))} {ch(TARGETS)}"
    if x < 0.52:
        return f"{ch(ADJS)} {ch(OBJECTS)} via {ch(TECHNIQUES)}"
    if x < 0.59:
        return f"Towards {ch(ADJS)} {ch(OBJECTS)} on {ch(HARDWARE)}"
    if x < 0.63:
        return f"A Case for {ch(ADJS)} {ch(OBJECTS)}"
    if x < 0.70:
        return f"Understanding {ch(OBJECTS)} in {ch(TARGETS)}: {ch(QUALS)}"
    if x < 0.78:
        return f"{ch(VERBS)} {ch(OBJECTS)}: {ch(TECHNIQUES)} for {ch(TARGETS)}"
    if x < 0.82:
        return f"When {ch(OBJECTS)} Meets {ch(OBJECTS)}: {ch(VERBS)} {ch(TARGETS)}"
    if x < 0.93:
        return (f"{system_name(r)}: A {ch(ADJS)} {ch(ARTIFACTS)} for "
                f"{ch(OBJECTS)} on {ch(HARDWARE)}")
    return f"{ch(OBJECTS)} for {ch(TARGETS)}: {ch(SUBTITLES)}"


ABS_SENT = [
    "{Obj} has become a critical bottleneck for {tgt}.",
    "Existing approaches to {obj} rely on manual tuning and fail to generalize across {hw}.",
    "In this paper, we present {sys}, a {adj} {art} that applies {tech} to {obj}.",
    "{sys} combines {tech} with a lightweight runtime to expose {adj2} opportunities that prior work misses.",
    "We implement {sys} on top of {tool} and evaluate it on {hw} using a diverse set of {tgt} workloads.",
    "Our evaluation shows that {sys} achieves up to {x}× speedup over state-of-the-art baselines while reducing memory "
    "usage by {p}%.",
    "We further characterize {obj} across {n} production workloads and identify {k} key inefficiencies.",
    "Compared to {tool}, {sys} reduces profiling overhead from {p}% to under {q}%.",
    "These results suggest that {obj} must be treated as a first-class concern when designing {tgt}.",
    "We release {sys} as open-source software to foster further research.",
]


def make_abstract(r: Random, title: str) -> str:
    sysn = title.split(":", 1)[0] if ":" in title and len(title.split(":", 1)[0]) < 20 else system_name(r)
    obj = pick(r, OBJECTS)
    vals = dict(Obj=obj, obj=obj.lower(), tgt=pick(r, TARGETS).lower(), hw=pick(r, HARDWARE),
                sys=sysn, adj=pick(r, ADJS).lower(), adj2=pick(r, ADJS).lower(),
                art=pick(r, ARTIFACTS).lower(), tech=pick(r, TECHNIQUES).lower(),
                tool=pick(r, TOOLS)[0], x=f"{1 + r.random() * 9:.1f}", p=str(5 + int(r.random() * 60)),
                q=str(1 + int(r.random() * 4)), n=str(5 + int(r.random() * 60)), k=str(2 + int(r.random() * 6)))
    picks = [0, 1, 2] + sorted(r.sample(range(3, len(ABS_SENT)), 2 + int(r.random() * 3)))
    sents = [ABS_SENT[j].format(**vals) for j in picks]
    if r.random() < 0.25:
        cut = 2 + int(r.random() * (len(sents) - 2))
        return ("<jats:p>" + " ".join(sents[:cut]) + "</jats:p>\n<jats:p>"
                + " ".join(sents[cut:]) + "</jats:p>")
    head = "<jats:title>Abstract</jats:title>" if r.random() < 0.3 else ""
    return head + "<jats:p>" + " ".join(sents) + "</jats:p>"


# --------------------------------------------------------------------------
# names
# --------------------------------------------------------------------------
Name = tuple  # (given, middle_initial_or_empty, family)


def full_name(n: Name, with_mid: bool = True) -> str:
    g, m, f = n
    if not g:
        return f
    if m and with_mid:
        return f"{g} {m}. {f}"
    return f"{g} {f}"


def initials(g: str) -> str:
    parts = []
    for chunk in g.split():
        sub = [p[:1] + "." for p in chunk.split("-") if p]
        parts.append("-".join(sub))
    return " ".join(parts)


def ieee_name(n: Name) -> str:
    g, m, f = n
    if not g:
        return f
    s = initials(g)
    if m:
        s += f" {m}."
    return f"{s} {f}"


def acm_list(names: list[Name], commas: bool = True, etal: bool = False) -> str:
    fn = [full_name(n) for n in names]
    if etal:
        return ", ".join(fn) + ", et al."
    if len(fn) == 1:
        return fn[0]
    if not commas:
        return " ".join(fn[:-1]) + " and " + fn[-1]
    if len(fn) == 2:
        return f"{fn[0]} and {fn[1]}"
    return ", ".join(fn[:-1]) + ", and " + fn[-1]


def ieee_list(names: list[Name]) -> str:
    fn = [ieee_name(n) for n in names]
    if len(fn) > 6:
        return fn[0] + " et al."
    if len(fn) == 1:
        return fn[0]
    if len(fn) == 2:
        return f"{fn[0]} and {fn[1]}"
    return ", ".join(fn[:-1]) + ", and " + fn[-1]


# --------------------------------------------------------------------------
# Works (pooled cited works and record headers share this shape)
# --------------------------------------------------------------------------
class Work:
    __slots__ = ("kind", "doi", "title", "authors", "year", "month", "venue_acr", "venue_long",
                 "venue_acm", "venue_ieee", "journal", "journal_iso", "journal_ieee", "volume",
                 "issue", "fp", "lp", "arxiv", "url", "org", "publisher", "pub_loc", "number",
                 "rtype", "pids", "vidx", "cache")

    def __init__(self) -> None:
        self.kind = "conf"
        self.doi: str | None = None
        self.title = ""
        self.authors: list[Name] = []
        self.year = 2020
        self.month = 1
        self.venue_acr = ""
        self.venue_long = ""
        self.venue_acm = ""
        self.venue_ieee = ""
        self.journal = ""
        self.journal_iso = ""
        self.journal_ieee = ""
        self.volume = ""
        self.issue = ""
        self.fp = ""
        self.lp = ""
        self.arxiv = ""
        self.url = ""
        self.org = ""
        self.publisher = ""
        self.pub_loc = ""
        self.number = ""
        self.rtype = ""
        self.pids: list[int] = []
        self.vidx = -1
        self.cache: dict[str, tuple[tuple, tuple]] = {}


# --------------------------------------------------------------------------
# reference renderers: each returns a dict of reference fields (no key)
# --------------------------------------------------------------------------


def _copy_event(e: dict[str, Any]) -> dict[str, Any]:
    """Copy a cached event object so that records never share mutable parts."""
    out: dict[str, Any] = {}
    for k, val in e.items():
        if isinstance(val, list):
            out[k] = list(val)
        elif isinstance(val, dict):  # start / end: {"date-parts": [[y, m, d]]}
            out[k] = {"date-parts": [list(val["date-parts"][0])]}
        else:
            out[k] = val
    return out


def _pages_dash(w: Work, dash: str = "–") -> str:
    return f"{w.fp}{dash}{w.lp}" if w.lp else w.fp


def acm_text(w: Work, commas: bool = True, with_doi: bool = False, arxiv_url: bool = False) -> str:
    names = w.authors
    etal = False
    if len(names) > 10:
        names, etal = names[:10], True
    au = acm_list(names, commas, etal) if names else (w.org or "")
    y = str(w.year) if w.year else "[n. d.]"
    k = w.kind
    if k == "conf":
        tail = f"In {w.venue_acm}."
        if w.publisher:
            tail = (f"In {w.venue_acm}. {w.publisher}, {w.pub_loc}, {_pages_dash(w)}." if w.fp
                    else f"In {w.venue_acm}. {w.publisher}, {w.pub_loc}.")
        elif w.fp:
            tail = f"In {w.venue_acm}. {_pages_dash(w)}."
        if w.url and not w.doi:
            tail += f" {w.url}"
    elif k == "journal":
        tail = f"{w.journal} {w.volume}"
        if w.issue:
            tail += f", {w.issue} ({MONTHS[w.month - 1][:3]}. {w.year})"
        tail += f", {_pages_dash(w)}." if w.fp else "."
    elif k == "arxiv":
        if arxiv_url:
            tail = f"arXiv preprint arXiv:https://arXiv.org/abs/{w.arxiv} ({w.year})."
        else:
            tail = f"arXiv preprint arXiv:{w.arxiv} ({w.year})."
    elif k == "book":
        tail = f"{w.publisher}, {w.pub_loc}." if w.pub_loc else f"{w.publisher}."
    elif k == "thesis":
        tail = f"Ph. D. Dissertation. {w.publisher}."
    elif k == "report":
        tail = f"Technical Report {w.number}. {w.publisher}." + (f" {w.url}" if w.url else "")
    else:  # web / tool
        tail = w.url + "."
    sep = " " if au.endswith(".") else ". "
    s = f"{au}{sep}{y}. {w.title}. {tail}" if au else f"{y}. {w.title}. {tail}"
    if with_doi and w.doi:
        s += f" https://doi.org/{w.doi}"
    return s


def ieee_text(w: Work, with_doi: bool = False) -> str:
    au = ieee_list(w.authors) if w.authors else (w.org or "")
    k = w.kind
    t = w.title
    if k == "conf":
        s = f"{au}, “{t},” in {w.venue_ieee}, {w.year}"
        s += f", pp. {_pages_dash(w)}." if w.fp and w.lp else "."
    elif k == "journal":
        s = f"{au}, “{t},” {w.journal_ieee}, vol. {w.volume}"
        if w.issue:
            s += f", no. {w.issue}"
        if w.fp:
            s += f", pp. {_pages_dash(w)}" if w.lp else f", Art. no. {w.fp}"
        s += f", {MON3[w.month - 1]} {w.year}."
    elif k == "arxiv":
        s = f"{au}, “{t},” arXiv preprint arXiv:{w.arxiv}, {w.year}."
    elif k == "book":
        s = f"{au}, {t}. {w.pub_loc}: {w.publisher}, {w.year}." if w.pub_loc else f"{au}, {t}. {w.publisher}, {w.year}."
    elif k == "thesis":
        s = f"{au}, “{t},” Ph.D. dissertation, {w.publisher}, {w.year}."
    elif k == "report":
        s = f"{au}, “{t},” {w.publisher}, Tech. Rep. {w.number}, {w.year}."
    else:
        return f"{au}, “{t}.” [Online]. Available: {w.url}"
    if with_doi and w.doi:
        s = s[:-1] + f", doi: {w.doi}."
    return s


def acm_author_field(w: Work) -> str | None:
    if w.authors:
        g, _m, f = w.authors[0]
        return f"{f} {g}" if g else f
    return w.org or None


def render_acm_struct(w: Work, r: Random) -> dict[str, Any]:
    d: dict[str, Any] = {}
    k = w.kind
    au = acm_author_field(w)
    if k == "journal":
        if w.issue:
            d["issue"] = w.issue
        if w.fp:
            d["first-page"] = w.fp
        d["article-title"] = w.title
        if w.volume:
            d["volume"] = w.volume
        if au:
            d["author"] = au
        d["year"] = str(w.year)
        d["unstructured"] = acm_text(w, with_doi=r.random() < 0.3)
        d["journal-title"] = w.journal
        return d
    if k == "conf":
        if w.fp and r.random() < 0.4:
            d["first-page"] = w.fp
        if r.random() < 0.08:
            d["series-title"] = f"{w.venue_acr} '{w.year % 100:02d}"
        d["volume-title"] = w.venue_acm if r.random() < 0.85 else f"{w.venue_acm}. {w.url or ''}".strip()
    elif k == "arxiv":
        d["volume-title"] = f"{w.title}. arXiv preprint arXiv:{w.arxiv}"
    elif k in ("book", "thesis", "report"):
        d["volume-title"] = w.title
    else:
        d["volume-title"] = f"{w.title}. {w.org}. {w.url} Accessed on" if r.random() < 0.5 else w.title
    if au:
        d["author"] = au
    if w.year and r.random() < 0.93:
        d["year"] = str(w.year)
    d["unstructured"] = acm_text(w, commas=r.random() < 0.8, with_doi=r.random() < 0.3,
                                 arxiv_url=r.random() < 0.4)
    return d


def render_ieee_struct(w: Work, r: Random) -> dict[str, Any]:
    d: dict[str, Any] = {}
    k = w.kind
    fam = w.authors[0][2] if w.authors else (pick(r, ("Corporation", "Team")) if w.org else None)
    if k == "journal":
        if w.issue:
            d["issue"] = w.issue
        if w.fp:
            d["first-page"] = w.fp
        d["article-title"] = sentence_case(w.title)
        if w.volume:
            d["volume"] = w.volume
        if fam:
            d["author"] = fam
        d["year"] = str(w.year)
        d["journal-title"] = w.journal_ieee
        return d
    if k == "conf":
        if w.fp:
            d["first-page"] = w.fp
        d["article-title"] = sentence_case(w.title)
        d["volume-title"] = w.venue_ieee
        if fam:
            d["author"] = fam
        if r.random() < 0.8:
            d["year"] = str(w.year)
        return d
    if k == "arxiv":
        d["article-title"] = sentence_case(w.title)
        if fam:
            d["author"] = fam
        d["year"] = str(w.year)
        d["journal-title"] = f"arXiv:{w.arxiv}"
        return d
    if k in ("book", "thesis", "report"):
        d["volume-title"] = sentence_case(w.title)
        if fam:
            d["author"] = fam
        d["year"] = str(w.year)
        return d
    # web / tool
    d["article-title"] = sentence_case(f"{w.org} {w.title}" if w.org and w.org not in w.title else w.title)
    if fam and r.random() < 0.8:
        d["author"] = fam
    if r.random() < 0.3:
        d["year"] = str(w.year)
    return d


STYLE_FUNCS: dict[str, Callable[[Work, Random], dict[str, Any]]] = {}


def _st_doi(w: Work, r: Random) -> dict[str, Any]:
    return {"doi-asserted-by": "publisher", "DOI": w.doi}


def _st_doi_cr(w: Work, r: Random) -> dict[str, Any]:
    text = acm_text(w, commas=r.random() < 0.5) if r.random() < 0.7 else ieee_text(w)
    return {"doi-asserted-by": "crossref", "unstructured": text, "DOI": w.doi}


def _st_acm_text(w: Work, r: Random) -> dict[str, Any]:
    return {"unstructured": acm_text(w, commas=r.random() < 0.6, with_doi=r.random() < 0.5,
                                     arxiv_url=r.random() < 0.5)}


def _st_ieee_text(w: Work, r: Random) -> dict[str, Any]:
    return {"unstructured": ieee_text(w, with_doi=r.random() < 0.4)}


def _st_title_only(w: Work, r: Random) -> dict[str, Any]:
    return {"article-title": sentence_case(w.title)}


def _st_key_only(w: Work, r: Random) -> dict[str, Any]:
    return {}


STYLE_FUNCS.update({
    "doi": _st_doi, "doi_cr": _st_doi_cr, "acm_struct": render_acm_struct,
    "ieee_struct": render_ieee_struct, "acm_text": _st_acm_text, "ieee_text": _st_ieee_text,
    "title_only": _st_title_only, "key_only": _st_key_only,
})


# --------------------------------------------------------------------------
# the generator
# --------------------------------------------------------------------------
PROFILES: dict[str, dict[str, Any]] = {
    "acm": {"publisher": "ACM", "member": "320", "prefix": "10.5555", "location": "New York, NY, USA",
            "domain": {"domain": ["dl.acm.org"], "crossmark-restriction": True},
            "policy": "https://doi.org/10.5555/crossmark-policy"},
    "ieee": {"publisher": "IEEE", "member": "263", "prefix": "10.9999", "location": None,
             "domain": {"domain": [], "crossmark-restriction": False}, "policy": None},
    "springer": {"publisher": "Springer Nature Switzerland", "member": "297", "prefix": "10.9998",
                 "location": "Cham", "domain": {"domain": ["link.springer.com"], "crossmark-restriction": False},
                 "policy": "https://doi.org/10.9998/springer_crossmark_policy"},
    "springer_j": {"publisher": "Springer Science and Business Media LLC", "member": "297", "prefix": "10.9998",
                   "location": None, "domain": {"domain": ["link.springer.com"], "crossmark-restriction": False},
                   "policy": "https://doi.org/10.9998/springer_crossmark_policy"},
    "elsevier": {"publisher": "Elsevier BV", "member": "78", "prefix": "10.9997", "location": None,
                 "domain": {"domain": ["elsevier.com", "sciencedirect.com"], "crossmark-restriction": True},
                 "policy": "https://doi.org/10.9997/elsevier_cm_policy"},
    "preprint": {"publisher": "Research Square Platform LLC", "member": "8761", "prefix": "10.48555",
                 "location": None, "domain": {"domain": [], "crossmark-restriction": False}, "policy": None},
    "repo": {"publisher": "Open Research Data Repository", "member": "16540", "prefix": "10.5556",
             "location": None, "domain": {"domain": [], "crossmark-restriction": False}, "policy": None},
}
TYPE_WEIGHTS = [("proceedings-article", 45), ("journal-article", 31), ("book-chapter", 7),
                ("posted-content", 8), ("report", 3), ("dataset", 2), ("dissertation", 4)]
TYPE_CUM = cum_of([w for _, w in TYPE_WEIGHTS])
YEARS = list(range(2015, 2027))
YEAR_CUM = cum_of([4, 4.5, 5, 5.5, 6, 7, 7.5, 8, 8.5, 9, 9.5, 4])
NAUTH_CUM = cum_of([4, 8, 14, 16, 15, 12, 9, 7, 5, 4, 3, 3])


class Generator:
    """Builds the fixed pools once; ``record(i)`` is a pure function of (seed, i)."""

    def __init__(self, seed: str = "0", templates: Templates | None = None) -> None:
        self.seed = str(seed)
        self.t = templates or Templates()
        self.work_order = self.t.work_order
        self.ref_rank = self.t.ref_rank
        pr = Random(POOL_SEED)
        self._build_institutions(pr)
        self._build_people(pr)
        self.cited: list[Work | None] = [None] * N_CITED
        self.cited_cum = zipf_cum(N_CITED, 1.0, 20.0)
        # publication years of the pooled works, drawn up front so that a citing record can
        # sample only among works not newer than itself (per-year cumulative weights)
        yr = Random(f"{POOL_SEED}/cited-years")
        self.cited_year = [min(2026, 1995 + int(yr.random() ** 0.35 * 32)) for _ in range(N_CITED)]
        self.tool_paper_rank = {3 * n + 1: n for n in range(len(TOOL_PAPERS))}
        for rank, n in self.tool_paper_rank.items():
            self.cited_year[rank] = TOOL_PAPERS[n][1]
        self.cum_by_year: dict[int, list[float]] = {}
        self.tool_cum = zipf_cum(len(TOOLS), 0.9, 3.0)
        self.tool_work_cache: dict[tuple[int, int], Work] = {}
        self.headers: dict[int, Work] = {}
        self.venue_cache: dict[tuple[int, int], dict[str, Any]] = {}
        self.book_cache: dict[int, dict[str, Any]] = {}
        self.lab_cum = zipf_cum(len(self.labs), 0.6, 5.0)

    # ---------------- pools
    def _build_institutions(self, r: Random) -> None:
        insts: list[tuple[str, str, str | None, str]] = list(INSTITUTIONS_REAL)
        seen = {x[0] for x in insts}
        pats = ["University of {c}", "{c} Institute of Technology", "Technical University of {c}",
                "{c} University of Science and Technology", "{c} Research Institute for Computing"]
        k = 0
        while len(insts) < 300:
            c, reg, country = CITIES[k % len(CITIES)]
            name = pats[(k // len(CITIES)) % len(pats)].format(c=c)
            if name not in seen:
                seen.add(name)
                insts.append((name, c, reg, country))
            k += 1
        self.insts = insts
        self.inst_ror = [ror_id(r) if r.random() < 0.7 else None for _ in insts]
        self.inst_cum = zipf_cum(len(insts), 0.7, 3.0)

    def _build_people(self, r: Random) -> None:
        g_cum = zipf_cum(len(GIVEN), 0.5, 2.0)
        f_cum = zipf_cum(len(FAMILY), 0.8, 3.0)
        gperm = GIVEN[:]
        fperm = FAMILY[:]
        r.shuffle(gperm)
        r.shuffle(fperm)
        self.p_name: list[Name] = []
        self.p_orcid: list[str | None] = []
        self.p_auth: list[bool] = []
        self.p_insts: list[tuple[int, ...]] = []
        self.labs: list[list[int]] = []
        used: set[str] = set()
        pid = 0
        while pid < N_PEOPLE:
            size = min(3 + int(r.random() * 10), N_PEOPLE - pid)
            home = weighted(r, self.inst_cum)
            second = weighted(r, self.inst_cum) if r.random() < 0.25 else None
            lab = []
            for _ in range(size):
                g = gperm[weighted(r, g_cum)]
                f = fperm[weighted(r, f_cum)]
                m = pick(r, MIDDLE) if r.random() < 0.22 else ""
                self.p_name.append((g, m, f))
                if r.random() < 0.5:
                    while True:
                        block = pick(r, ("0000-0001", "0000-0002", "0000-0002", "0000-0003",
                                          "0009-0000", "0009-0001", "0009-0002", "0009-0003",
                                          "0009-0004", "0009-0005", "0009-0006", "0009-0007"))
                        digits = block.replace("-", "") + "".join(str(int(r.random() * 10)) for _ in range(7))
                        oid = digits + orcid_check_digit(digits)
                        if oid not in used:
                            used.add(oid)
                            break
                    self.p_orcid.append(f"https://orcid.org/{oid[0:4]}-{oid[4:8]}-{oid[8:12]}-{oid[12:16]}")
                    self.p_auth.append(r.random() < 0.35)
                else:
                    self.p_orcid.append(None)
                    self.p_auth.append(False)
                ins = (home,) if second is None or r.random() < 0.5 else (home, second)
                if r.random() < 0.06:
                    ins = ins + (weighted(r, self.inst_cum),)
                self.p_insts.append(ins)
                lab.append(pid)
                pid += 1
            self.labs.append(lab)

    def random_name(self, r: Random) -> Name:
        return (pick(r, GIVEN), pick(r, MIDDLE) if r.random() < 0.2 else "", pick(r, FAMILY))

    # ---------------- venues
    def venue_year(self, vi: int, year: int) -> dict[str, Any]:
        key = (vi, year)
        v = self.venue_cache.get(key)
        if v is not None:
            return v
        acr, long, pub, first, ieee, sponsors, month = CONF_VENUES[vi]
        r = Random(f"{POOL_SEED}/venue/{vi}/{year}")
        ed = max(1, year - first + 1)
        yy = year % 100
        start = date(year, month, 1 + int(r.random() * 20)).toordinal()
        v = {"acr": acr, "long": long, "pub": pub, "edition": ed, "start": start,
             "end": start + 2 + int(r.random() * 3)}
        if pub == "acm":
            v["container"] = f"Proceedings of the {ordinal(ed)} {long}"
            if r.random() < 0.15:
                v["container"] += f", Volume {1 + int(r.random() * 3)}"
            tag = f"{acr} '{yy:02d}" if r.random() < 0.7 or year < 2024 else f"{acr} {year}"
            v["event"] = {"name": f"{tag}: {ordinal(ed)} {long}", "location": pick(r, LOCATIONS_ACM),
                          "acronym": tag,
                          "sponsor": [SIG[s] for s in sponsors if s != "IEEE-CS"] or [SIG["ARCH"]]}
            v["proc"] = 3500000 + vi * 100 + (year - 1960)
            base = f"97984007{vi * 100 + year % 100:04d}"
            v["isbn"] = base + isbn13_check_digit(base)
            v["acm_ref"] = f"Proceedings of the {ordinal(ed)} {long} ({tag})"
            v["ieee_ref"] = f"{ieee}"
        elif pub == "ieee":
            v["container"] = f"{year} {long} ({acr})"
            v["event"] = {"name": v["container"], "location": pick(r, LOCATIONS_IEEE),
                          "start": date_parts(start), "end": date_parts(v["end"])}
            v["confid"] = 40000 + vi * 1000 + (year - 1960) * 13
            base = f"97983315{vi * 100 + year % 100:04d}"
            v["isbn"] = base + isbn13_check_digit(base)
            v["acm_ref"] = f"{year} {long} ({acr})"
            v["ieee_ref"] = ieee
        else:
            v["container"] = f"{long} {year}" if acr != "Euro-Par" else f"Euro-Par {year}: Parallel Processing"
            v["series"] = "Lecture Notes in Computer Science"
            v["event"] = {"name": f"{long}", "location": pick(r, LOCATIONS_IEEE).split(",")[0],
                          "acronym": f"{acr} {year}", "number": str(ed),
                          "start": date_parts(start), "end": date_parts(v["end"])}
            v["acm_ref"] = v["container"]
            v["ieee_ref"] = ieee
        self.venue_cache[key] = v
        return v

    # ---------------- cited pool
    def cited_work(self, k: int) -> Work:
        w = self.cited[k]
        if w is None:
            w = self._make_cited(k)
            self.cited[k] = w
        return w

    def _set_conf(self, w: Work, r: Random, vi: int | None, k: int, acr_hint: str | None = None) -> None:
        """Fill a cited conference paper for venue index vi (CONF_VENUES) or a cited-only venue."""
        if vi is not None:
            w.year = max(w.year, CONF_VENUES[vi][3])
        y = w.year
        if vi is not None:
            v = self.venue_year(vi, y)
            pub = v["pub"]
            w.venue_acr = v["acr"]
            w.venue_acm = v["acm_ref"]
            w.venue_ieee = v["ieee_ref"]
            w.fp = str(1 + int(r.random() * 1200))
            w.lp = str(int(w.fp) + 8 + int(r.random() * 14))
            if pub == "acm":
                w.publisher, w.pub_loc = "Association for Computing Machinery", "New York, NY, USA"
                if r.random() < 0.88:
                    w.doi = f"10.5555/{v['proc']}.{2100000 + k}"
            elif pub == "ieee":
                if r.random() < 0.9:
                    if r.random() < 0.5:
                        w.doi = f"10.9999/{v['acr'].upper()}.{y}.{4900000 + k}"
                    else:
                        w.doi = f"10.9999/{v['acr'].upper()}{v['confid']}.{y}.{k:05d}"
            else:
                w.publisher, w.pub_loc = "Springer International Publishing", "Cham"
                if r.random() < 0.85:
                    base = f"9783030{k:05d}"
                    w.doi = f"10.9998/978-3-030-{k:05d}-{isbn13_check_digit(base)}_{1 + int(r.random() * 30)}"
            return
        acr, long, pub, first, ieee = pick(r, CITED_ONLY_VENUES) if acr_hint is None else next(
            c for c in CITED_ONLY_VENUES if c[0] == acr_hint)
        w.year = y = max(y, first)
        ed = max(1, y - first + 1)
        yy = y % 100
        w.venue_acr = acr
        w.venue_ieee = ieee
        if pub == "usenix":
            w.venue_acm = (f"{ordinal(ed)} {long} ({acr} {yy:02d})" if r.random() < 0.5
                           else f"Proceedings of the {ordinal(ed)} {long}")
            w.publisher, w.pub_loc = "USENIX Association", "USA"
            w.fp = str(1 + int(r.random() * 900))
            w.lp = str(int(w.fp) + 14 + int(r.random() * 6))
            if r.random() < 0.3:
                w.url = (f"https://www.usenix.org/conference/{acr.lower()}{yy:02d}/presentation/"
                         f"{slug(w.authors[0][2]) if w.authors else 'paper'}")
        elif pub == "neurips":
            w.venue_acm = f"Advances in Neural Information Processing Systems {y - 1987}"
            w.volume = str(y - 1987)
            if r.random() < 0.25:
                w.publisher, w.pub_loc = "Curran Associates Inc.", "Red Hook, NY, USA"
                w.doi = f"10.5555/{3400000 + (y * 7919) % 99991}.{2100000 + k}"
        elif pub == "pmlr":
            w.venue_acm = f"Proceedings of the {ordinal(ed)} {long}"
            w.volume = str(100 + (y - 2018) * 20)
            w.fp = str(1 + int(r.random() * 30000))
            w.lp = str(int(w.fp) + 10 + int(r.random() * 12))
        elif pub == "openreview":
            named = ['', 'First', 'Second', 'Third', 'Fourth', 'Fifth', 'Sixth', 'Seventh', 'Eighth', 'Ninth', 'Tenth',
                     'Eleventh', 'Twelfth', 'Thirteenth', 'Fourteenth'][min(ed, 14)]
            w.venue_acm = f"The {named or ordinal(ed)} {long}"
            w.url = "https://openreview.net/forum?id=" + "".join(pick(r,
                "abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ0123456789") for _ in range(10))
        elif pub == "mlsys":
            w.venue_acm = f"Proceedings of Machine Learning and Systems (MLSys’{yy:02d})"
            w.volume = str(max(1, y - 2018))
        else:
            w.venue_acm = long
            w.volume = str(max(1, y - 2007))
            w.fp = str(1 + int(r.random() * 4000))
            w.lp = str(int(w.fp) + 12)
            if r.random() < 0.5:
                w.doi = f"10.9995/{3550000 + k}.{3550000 + k * 3}"

    def _set_journal(self, w: Work, r: Random, ji: int, k: int) -> None:
        full, iso, ieee, pub, first, code = JOURNALS[ji]
        y = w.year = max(w.year, first)
        w.kind = "journal"
        w.journal, w.journal_iso, w.journal_ieee = full, iso, ieee
        w.volume = str(y - first + 1)
        w.issue = str(1 + int(r.random() * 12)) if r.random() < 0.9 else ""
        w.month = int(w.issue) if w.issue else 1 + int(r.random() * 12)
        if pub == "acm":
            w.fp, w.lp = "1", str(18 + int(r.random() * 20))
            if r.random() < 0.97:
                w.doi = f"10.5555/{2100000 + k}"
        elif pub == "ieee":
            w.fp = str(1 + int(r.random() * 3000))
            w.lp = str(int(w.fp) + 4 + int(r.random() * 12))
            if r.random() < 0.97:
                w.doi = f"10.9999/{code}.{y}.{2800000 + k}"
        elif pub == "springer":
            w.fp = str(1 + int(r.random() * 20000))
            w.lp = str(int(w.fp) + 15 + int(r.random() * 20))
            if r.random() < 0.95:
                w.doi = f"10.9998/s{code}-{y % 1000:03d}-{k:05d}-{k % 10}"
        else:
            w.fp = str(100000 + int(r.random() * 900000)) if r.random() < 0.5 else str(1 + int(r.random() * 200))
            w.lp = "" if len(w.fp) > 5 else str(int(w.fp) + 12)
            if r.random() < 0.95:
                w.doi = f"10.9997/j.{code}.{y}.{1 + int(r.random() * 12):02d}.{k % 1000:03d}{k // 1000}"

    def _authors(self, r: Random, n: int, pool_share: float) -> list[Name]:
        out: list[Name] = []
        if r.random() < pool_share:
            lab = self.labs[weighted(r, self.lab_cum)]
            for _ in range(n):
                pid = lab[int(r.random() * len(lab))] if r.random() < 0.7 else int(r.random() * N_PEOPLE)
                nm = self.p_name[pid]
                if nm not in out:
                    out.append(nm)
        while len(out) < n:
            out.append(self.random_name(r))
        return out

    def _make_cited(self, k: int) -> Work:
        r = Random(f"{POOL_SEED}/cited/{k}")
        w = Work()
        tp = self.tool_paper_rank.get(k)
        if tp is not None:
            title, year, venue, authors = TOOL_PAPERS[tp]
            w.title, w.year = title, year
            w.authors = []
            for a in authors.split("; "):
                parts = a.split(" ")
                w.authors.append((" ".join(parts[:-1]), "", parts[-1]))
            w.month = 1 + int(r.random() * 12)
            vi = next((n for n, c in enumerate(CONF_VENUES) if c[0] == venue), None)
            ji = next((n for n, j in enumerate(JOURNALS) if j[5] == venue), None)
            if vi is not None:
                w.kind = "conf"
                self._set_conf(w, r, vi, k)
            elif ji is not None:
                self._set_journal(w, r, ji, k)
            elif venue == "arXiv":
                w.kind = "arxiv"
                w.arxiv = f"{year % 100:02d}{w.month:02d}.{k + 1:05d}"
            elif venue in ("CAN", "CCPE"):
                w.kind = "journal"
                w.journal, w.journal_iso, w.journal_ieee = (
                    ("ACM SIGARCH Computer Architecture News", "SIGARCH Comput. Archit. News",
                     "ACM SIGARCH Comput. Archit. News") if venue == "CAN" else
                    ("Concurrency and Computation: Practice and Experience", "Concurrency Computat.: Pract. Exper.",
                     "Concurrency Comput., Pract. Exper."))
                w.volume, w.issue = ("39", "2") if venue == "CAN" else ("22", "6")
                w.fp, w.lp = ("1", "7") if venue == "CAN" else ("685", "701")
                w.doi = f"10.5555/{2100000 + k}" if venue == "CAN" else f"10.9994/cpe.{1500 + k}"
            else:
                w.kind = "conf"
                self._set_conf(w, r, None, k, acr_hint=venue)
            return w
        x = r.random()
        w.year = self.cited_year[k]
        w.month = 1 + int(r.random() * (12 if w.year < 2026 else 4))
        w.title = make_title(r)
        na = 1 + weighted(r, NAUTH_CUM)
        if x < 0.44:
            w.kind = "conf"
            w.authors = self._authors(r, na, 0.55)
            if r.random() < 0.72:
                self._set_conf(w, r, int(r.random() * len(CONF_VENUES)), k)
            else:
                self._set_conf(w, r, None, k)
            if w.year >= 2012 and r.random() < 0.3:
                w.arxiv = f"{w.year % 100:02d}{w.month:02d}.{k + 1:05d}"
        elif x < 0.68:
            w.authors = self._authors(r, na, 0.55)
            self._set_journal(w, r, int(r.random() * len(JOURNALS)), k)
        elif x < 0.84:
            w.kind = "arxiv"
            w.year = max(w.year, 2015)
            w.authors = self._authors(r, na, 0.5)
            w.arxiv = f"{w.year % 100:02d}{w.month:02d}.{k + 1:05d}"
            if r.random() < 0.25:
                w.doi = f"10.48555/arXiv.{w.arxiv}"
        elif x < 0.87:
            w.kind = "book"
            w.authors = self._authors(r, 1 + int(r.random() * 3), 0.3)
            w.title = pick(r, ["Computer Architecture: A Quantitative Approach", "Engineering a Compiler",
                                "Parallel Programming: Concepts and Practice", "Deep Learning Systems",
                                "Performance Analysis and Tuning on Modern CPUs",
                                "Programming Massively Parallel Processors: A Hands-on Approach",
                                "Efficient Processing of Deep Neural Networks",
                                "Optimizing Compilers for Modern Architectures",
                                "High Performance Computing: Modern Systems and Practices"]) + (
                f", {ordinal(2 + int(r.random() * 5))} Edition" if r.random() < 0.3 else "")
            w.publisher, w.pub_loc = pick(r, [("Morgan Kaufmann", "San Francisco, CA, USA"),
                                               ("MIT Press", "Cambridge, MA, USA"),
                                               ("Springer", "Cham"), ("Morgan & Claypool", "San Rafael, CA, USA"),
                                               ("O'Reilly Media", "Sebastopol, CA, USA")])
            if w.publisher in ("Springer", "Morgan & Claypool") and r.random() < 0.8:
                base = f"9783319{k:05d}"
                w.doi = f"10.9998/978-3-319-{k:05d}-{isbn13_check_digit(base)}"
        elif x < 0.89:
            w.kind = "thesis"
            w.authors = self._authors(r, 1, 0.6)
            w.publisher = self.insts[weighted(r, self.inst_cum)][0]
        elif x < 0.92:
            w.kind = "report"
            w.authors = self._authors(r, 1 + int(r.random() * 5), 0.5)
            inst = pick(r, ["Lawrence Livermore National Laboratory", "University of California, Berkeley",
                             "Oak Ridge National Laboratory", "Argonne National Laboratory",
                             "Sandia National Laboratories", "Massachusetts Institute of Technology"])
            w.publisher = inst
            w.number = {"Lawrence Livermore National Laboratory": f"LLNL-TR-{700000 + int(r.random() * 200000)}",
                        "University of California, Berkeley": f"UCB/EECS-{w.year}-{1 + int(r.random() * 250)}",
                        "Oak Ridge National Laboratory": f"ORNL/TM-{w.year}/{100 + int(r.random() * 900)}",
                        "Argonne National Laboratory": f"ANL/MCS-TM-{300 + int(r.random() * 100)}",
                        "Sandia National Laboratories": f"SAND{w.year}-{1000 + int(r.random() * 9000)}",
                        "Massachusetts Institute of Technology":
                            f"MIT-CSAIL-TR-{w.year}-{1 + int(r.random() * 40):03d}"}[inst]
            if r.random() < 0.2:
                w.doi = f"10.9996/{1000000 + k}"
            if r.random() < 0.4:
                w.url = f"https://www.osti.gov/biblio/{1800000 + k}"
        else:
            w.kind = "web"
            org, prod, py = pick(r, [("NVIDIA", "Hopper", 2022), ("NVIDIA", "Blackwell", 2024),
                                     ("NVIDIA", "Ampere GA102", 2020), ("NVIDIA", "Volta", 2017),
                                     ("NVIDIA", "Pascal", 2016), ("AMD", "CDNA 3", 2023),
                                     ("AMD", "Instinct MI300", 2023), ("AMD", "Vega", 2017),
                                     ("Intel", "Gaudi 3", 2024), ("Intel", "Sapphire Rapids", 2023),
                                     ("Intel", "Xeon Phi", 2016), ("Google", "TPU v5e", 2023),
                                     ("Google", "TPU v4", 2021), ("Google", "TPU v2", 2017),
                                     ("Cerebras", "WSE-3", 2024), ("Cerebras", "WSE-2", 2021),
                                     ("Graphcore", "IPU", 2018), ("Tenstorrent", "Wormhole", 2022),
                                     ("SambaNova", "SN40L", 2024), ("Arm", "Neoverse V2", 2022),
                                     ("Arm", "Scalable Vector Extension", 2016), ("Meta", "MTIA", 2023),
                                     ("Amazon Web Services", "Trainium", 2021), ("Groq", "LPU", 2024)])
            w.org = org
            w.year = max(w.year, py)
            w.title = pick(r, [f"{org} {prod} Architecture In-Depth", f"{prod} Architecture Whitepaper",
                                f"Introducing {prod}", f"{org} {prod} Tuning Guide",
                                f"{prod} Instruction Set Architecture Reference Guide",
                                f"Debugging with {org} {prod}", f"{org} {prod} Product Brief"])
            host = {"NVIDIA": "developer.nvidia.com/blog", "AMD": "www.amd.com/en/technologies",
                    "Intel": "www.intel.com/content/www/us/en/products/docs",
                    "Google": "cloud.google.com/blog/products/ai-machine-learning",
                    "Amazon Web Services": "aws.amazon.com/ai/machine-learning"}.get(org, f"www.{slug(org)}.com/blog")
            w.url = f"https://{host}/{slug(w.title)}/"
            if r.random() < 0.4:
                w.authors = self._authors(r, 1 + int(r.random() * 6), 0.1)
        return w

    def tool_work(self, t: int, variant: int) -> Work:
        key = (t, variant)
        w = self.tool_work_cache.get(key)
        if w is not None:
            return w
        name, org, url, first = TOOLS[t]
        w = Work()
        w.kind = "tool"
        w.org = org
        w.title = [name, f"{org} {name}" if not name.startswith(org) else name, f"{name} Documentation",
                   f"{name} User Guide", f"{name}: Official Website"][variant]
        w.url = url
        w.year = first
        self.tool_work_cache[key] = w
        return w

    # ---------------- record header (pure in (seed, i))
    def header(self, i: int) -> Work:
        w = self.headers.get(i)
        if w is not None:
            return w
        w = self._make_header(i)
        if i < HEADER_CACHE_BELOW:  # early records are cited most often (j ~ i * u**2.5)
            self.headers[i] = w
        return w

    def _make_header(self, i: int) -> Work:  # noqa: C901 - one draw per field; their order fixes the corpus bytes
        r = Random(f"{self.seed}:{i}")
        w = Work()
        typ = TYPE_WEIGHTS[weighted(r, TYPE_CUM)][0]
        w.rtype = typ
        year = YEARS[weighted(r, YEAR_CUM)]
        w.year = year
        w.month = 1 + int(r.random() * 12)
        if year == 2026:
            w.month = 1 + int(r.random() * 5)
        t = make_title(r)
        while t.strip().lower() in self.t.forbidden_titles:
            t = f"{t}: {pick(r, SUBTITLES)}"
        if SHAPE == "two-families":  # (its own draws: the default shape's bytes do not change)
            s = Random(f"{self.seed}:{i}:shape")
            if s.random() < FAMILY_SHARE:
                t = f"{t}: {pick(s, FAMILY_TITLES[int(s.random() * 2)])}"
        w.title = t
        if typ == "dissertation":
            na = 1
        else:
            na = 1 + weighted(r, NAUTH_CUM)
        # authors: mostly one lab, plus collaborators
        lab = self.labs[weighted(r, self.lab_cum)]
        pids: list[int] = []
        members = lab[1:] + lab[:1]  # PI (lab[0]) last
        for p in members:
            if len(pids) >= na:
                break
            if r.random() < 0.75:
                pids.append(p)
        while len(pids) < na:
            if r.random() < 0.6:
                other = self.labs[weighted(r, self.lab_cum)]
                p = other[int(r.random() * len(other))]
            else:
                p = int(r.random() * N_PEOPLE)
            if p not in pids:
                pids.append(p)
        if len(pids) > 2 and lab[0] in pids and r.random() < 0.8:
            pids.remove(lab[0])
            pids.append(lab[0])
        w.pids = pids
        w.authors = [self.p_name[p] for p in pids]
        if typ == "proceedings-article":
            vi = int(r.random() * len(CONF_VENUES))
            if CONF_VENUES[vi][2] == "springer":
                vi = int(r.random() * 16)  # LNCS volumes are book chapters
            v = self.venue_year(vi, year)
            w.kind = "conf"
            w.venue_acr, w.venue_acm, w.venue_ieee = v["acr"], v["acm_ref"], v["ieee_ref"]
            w.vidx = vi
            if v["pub"] == "acm":
                w.publisher, w.pub_loc = "Association for Computing Machinery", "New York, NY, USA"
                w.doi = f"10.5555/{v['proc']}.{3700000 + i}"
            else:
                w.doi = f"10.9999/{v['acr'].lower()}{v['confid']}.{year}.{11000000 + i}"
        elif typ == "journal-article":
            x = r.random()
            if x < 0.42:
                ji = int(r.random() * 10)
            elif x < 0.86:
                ji = 10 + int(r.random() * 8)
            else:
                ji = 18 + int(r.random() * 7)
            full, iso, ieee, pub, first, code = JOURNALS[ji]
            w.kind = "journal"
            w.journal, w.journal_iso, w.journal_ieee = full, iso, ieee
            w.vidx = ji
            w.volume = str(year - first + 1)
            w.issue = str(1 + int(r.random() * (12 if pub != "acm" else 6)))
            if pub == "acm":
                w.doi = f"10.5555/{3700000 + i}"
            elif pub == "ieee":
                w.doi = f"10.9999/{code}.{year}.{3200000 + i}"
            elif pub == "springer":
                w.doi = f"10.9998/s{code}-{year % 1000:03d}-{100000 + i:06d}-{i % 10}"
            else:
                w.doi = f"10.9997/j.{code}.{year}.{100000 + i:06d}"
        elif typ == "book-chapter":
            block = i // 20
            b = self.book(block)
            w.kind = "conf"
            w.year = b["year"]
            w.venue_acm = b["title"]
            w.venue_ieee = b["title"]
            w.publisher, w.pub_loc = "Springer Nature Switzerland", "Cham"
            w.doi = f"10.9998/{b['isbn_h']}_{i % 20 + 1}"
        elif typ == "posted-content":
            w.kind = "arxiv"
            w.arxiv = f"{year % 100:02d}{w.month:02d}.{i + 50000:05d}"
            w.doi = f"10.48555/arXiv.{w.arxiv}"
        elif typ == "dataset":
            w.kind = "web"
            w.doi = f"10.5556/zenodo.{7000000 + i}"
            w.org = PROFILES["repo"]["publisher"]
            w.url = f"https://doi.org/{w.doi}"
        elif typ == "report":
            w.kind = "report"
            w.doi = f"10.5556/rep.{year}.{i}"
            w.publisher = self.insts[self.p_insts[pids[0]][0]][0]
            w.number = f"TR-{year}-{i % 1000:03d}"
        else:
            w.kind = "thesis"
            w.doi = f"10.5556/etd.{i}"
            w.publisher = self.insts[self.p_insts[pids[0]][0]][0]
        return w

    def book(self, block: int) -> dict[str, Any]:
        b = self.book_cache.get(block)
        if b is not None:
            return b
        if len(self.book_cache) > 1000:
            self.book_cache.clear()
        r = Random(f"{self.seed}:book:{block}")
        year = YEARS[weighted(r, YEAR_CUM)]
        pubcode = 31 + block // 100000
        title_no = block % 100000
        base = f"9783{pubcode:03d}{title_no:05d}"
        isbn_p = base + isbn13_check_digit(base)
        base_e = f"9783{pubcode:03d}{(title_no + 50000) % 100000:05d}"
        isbn_e = base_e + isbn13_check_digit(base_e)
        isbn_h = f"978-3-{pubcode:03d}-{title_no:05d}-{isbn_p[-1]}"
        x = r.random()
        event = None
        if x < 0.55:
            vi = [n for n, c in enumerate(CONF_VENUES) if c[2] == "springer"][int(r.random() * 3)]
            v = self.venue_year(vi, year)
            series = ["Lecture Notes in Computer Science"]
            title = v["container"] if r.random() < 0.6 else f"{v['container']} Workshops"
            event = v["event"]
        else:
            series = [pick(r,
                           ["Lecture Notes in Computer Science", "Communications in Computer and Information Science",
                                "Studies in Computational Intelligence",
                                "Synthesis Lectures on Computer Architecture"])]
            title = pick(r, [f"{pick(r, ADJS)} {pick(r, OBJECTS)}", f"{pick(r, OBJECTS)} for {pick(r, TARGETS)}",
                              f"Handbook of {pick(r, OBJECTS)}", f"Advances in {pick(r, TARGETS)}"])
        eds = [int(r.random() * N_PEOPLE) for _ in range(1 + int(r.random() * 3))]
        b = {"year": year, "title": title, "series": series, "isbn_p": isbn_p, "isbn_e": isbn_e,
             "isbn_h": isbn_h, "event": event, "editors": eds, "month": 1 + int(r.random() * 12)}
        self.book_cache[block] = b
        return b

    # ---------------- rendering a citation
    def template(self, w: Work, style: str, r: Random | None) -> tuple[tuple, tuple]:
        """Render ``w`` in ``style`` as (fields before "key", fields after "key"), ordered like
        Crossref's reference objects.  With r None the rendering is a pure function of
        (work, style) and is cached on the work."""
        fields = STYLE_FUNCS[style](w, Random(f"{style}/{w.doi or w.title}") if r is None else r)
        rank = self.ref_rank
        kr = rank["key"]
        items = sorted(fields.items(), key=lambda kv: rank.get(kv[0], 99))
        tpl = (tuple(kv for kv in items if rank.get(kv[0], 99) < kr),
               tuple(kv for kv in items if rank.get(kv[0], 99) > kr))
        if r is None:
            w.cache[style] = tpl
        return tpl

    def render(self, w: Work, style: str, key: str, r: Random, cache: bool) -> dict[str, Any]:
        tpl = (w.cache.get(style) or self.template(w, style, None)) if cache else self.template(w, style, r)
        pre, post = tpl
        if pre:
            d = dict(pre)
            d["key"] = key
        else:
            d = {"key": key}
        d.update(post)
        return d

    def pick_style(self, w: Work, house: str, r: Random) -> str:
        x = r.random()
        has_doi = w.doi is not None
        if house == "acm":
            if has_doi:
                return "doi" if x < 0.74 else ("doi_cr" if x < 0.86 else ("acm_struct" if x < 0.97 else "acm_text"))
            if w.kind in ("web", "tool"):
                return "acm_text" if x < 0.7 else "acm_struct"
            if w.kind == "arxiv":
                return "acm_text" if x < 0.55 else "acm_struct"
            return "acm_struct" if x < 0.72 else ("acm_text" if x < 0.99 else "key_only")
        if house == "ieee":
            if has_doi:
                return "doi" if x < 0.8 else ("ieee_struct" if x < 0.97 else "title_only")
            if w.kind in ("web", "tool"):
                return "ieee_struct" if x < 0.75 else ("title_only" if x < 0.95 else "ieee_text")
            return "ieee_struct" if x < 0.85 else ("title_only" if x < 0.96 else "key_only")
        # other publishers: wider mix
        if has_doi:
            return ("doi" if x < 0.55 else "doi_cr" if x < 0.7 else "acm_text" if x < 0.8
                    else "ieee_text" if x < 0.93 else "ieee_struct" if x < 0.98 else "key_only")
        return ("acm_text" if x < 0.35 else "ieee_text" if x < 0.7 else "ieee_struct" if x < 0.85
                else "acm_struct" if x < 0.97 else "key_only")

    def tool_ref(self, t: int, house: str, key: str, r: Random, cite_ord: int) -> dict[str, Any]:
        name, org, url, first = TOOLS[t]
        variant = 0 if r.random() < 0.55 else 1 + int(r.random() * 4)
        w = self.tool_work(t, variant)
        acc_y, acc_m, acc_d = ymd(cite_ord - 20 - int(r.random() * 200))
        yr = max(first, acc_y - int(r.random() * 2))
        x = r.random()
        if house == "ieee" or (house == "other" and x < 0.3):
            if r.random() < 0.85:
                return self.render(w, "ieee_struct", key, r, True)
            return {"key": key, "unstructured": f"{org}, “{w.title}.” [Online]. Available: {url}"}
        if x < 0.35:
            text = f"{org}. {yr}. {w.title}. {url}. Accessed: {acc_y}-{acc_m:02d}-{acc_d:02d}."
        elif x < 0.55:
            text = f"{org} {yr}. {w.title}. {org}. {url} Accessed on: {MONTHS[acc_m - 1]} {acc_d}, {acc_y}."
        elif x < 0.7:
            text = f"{org}. [n. d.]. {w.title}. {url} Accessed: {acc_y}-{acc_m:02d}-{acc_d:02d}."
        elif x < 0.8:
            text = f"{yr}. {w.title}. {url}."
        elif x < 0.9:
            text = f"{w.title}. {url}."
        else:
            return {"key": key, "volume-title": f"{w.title}. {org}. {url} Accessed on",
                    "author": org, "year": str(yr),
                    "unstructured": f"{org} {yr}. {w.title}. {org}. {url} Accessed on: {MONTHS[acc_m - 1]} {acc_d}, "
                                    f"{acc_y}."}
        return {"key": key, "unstructured": text}

    # ---------------- full record
    def record(self, i: int) -> dict[str, Any]:  # noqa: C901 - one draw per field; their order fixes the corpus bytes
        h = self.header(i)
        r = Random(f"{self.seed}:{i}:body")
        typ = h.rtype
        year = h.year
        pids = h.pids
        rnd = r.random
        v: dict[str, Any] = {}

        # ---- publisher profile
        if typ == "proceedings-article":
            vy = self.venue_year(h.vidx, year)
            house = vy["pub"]
            prof = PROFILES[house]
        elif typ == "journal-article":
            ji = h.vidx
            jpub = JOURNALS[ji][3]
            house = jpub if jpub in ("acm", "ieee") else "other"
            prof = PROFILES[jpub if jpub != "springer" else "springer_j"]
        elif typ == "book-chapter":
            house, prof = "other", PROFILES["springer"]
        elif typ == "posted-content":
            house, prof = "other", PROFILES["preprint"]
        else:
            house, prof = "other", PROFILES["repo"]
        doi = h.doi
        prefix = prof["prefix"]

        # ---- dates
        issue_ord = date(year, h.month, 1).toordinal() + int(rnd() * 28)
        if typ == "proceedings-article":
            issue_ord = vy["start"] + int(rnd() * 3)
        elif typ == "book-chapter":
            b = self.book(i // 20)
            issue_ord = date(b["year"], b["month"], 1).toordinal() + (i // 20) % 27
        issue_ord = min(issue_ord, NOW_ORD - 30)
        px = rnd()
        prec = 3 if px < 0.75 else (2 if px < 0.92 else 1)
        if typ in ("proceedings-article", "book-chapter"):
            prec = 3 if px < 0.9 else 2
        online_ord = issue_ord - int(rnd() * 40) if rnd() < 0.8 else None
        print_ord = issue_ord + int(rnd() * 60) if (rnd() < 0.6 and typ not in ("posted-content", "dataset")) else None
        created_ord = min((online_ord or issue_ord) - int(rnd() * 10), NOW_ORD - 5)
        deposited_ord = min(created_ord + (int(rnd() * 5) if rnd() < 0.6 else int(rnd() * 500)), NOW_ORD - 2)
        if rnd() < 0.85:  # Crossref re-indexes continuously: most "indexed" dates are recent
            indexed_ord = max(deposited_ord, NOW_ORD - int(rnd() * 200))
        else:
            indexed_ord = min(deposited_ord + int(rnd() * 200), NOW_ORD)
        issued_ord = min(x for x in (online_ord, print_ord, issue_ord) if x is not None)

        v["indexed"] = stamped(indexed_ord, int(rnd() * 86400), int(rnd() * 1000))
        v["indexed"]["version"] = self.t.versions[int(rnd() * len(self.t.versions))]
        if prof["location"] and typ in ("proceedings-article", "book-chapter"):
            v["publisher-location"] = prof["location"]
        v["publisher"] = prof["publisher"]

        # ---- container
        container: list[str] = []
        short_container: list[str] = []
        if typ == "proceedings-article":
            container = [vy["container"]]
            v["event"] = _copy_event(vy["event"])
            if house == "acm" or rnd() < 0.3:
                v["ISBN"] = [vy["isbn"]]
                v["isbn-type"] = [{"value": vy["isbn"], "type": "print" if house == "ieee" else "electronic"}]
            v["page"] = f"{1 + int(rnd() * 1400)}"
            v["page"] += f"-{int(v['page']) + 9 + int(rnd() * 14)}"
            if house == "acm":
                v["alternative-id"] = [doi, f"{prefix}/{vy['proc']}"]
                if rnd() < 0.7:
                    y_, m_, d_ = ymd(online_ord or issue_ord)
                    v["assertion"] = [{"value": f"{y_:04d}-{m_:02d}-{d_:02d}",
                                       "order": 2 + int(rnd() * 2), "name": "published", "label": "Published",
                                       "group": {"name": "publication_history", "label": "Publication History"}}]
        elif typ == "journal-article":
            full, iso, ieee, jpub, first, code = JOURNALS[ji]
            container = [full]
            short_container = [iso]
            v["volume"] = h.volume
            v["issue"] = h.issue
            jr = Random(f"{POOL_SEED}/issn/{ji}")
            b7 = f"{1000000 + int(jr.random() * 8999999):07d}"
            e7 = f"{1000000 + int(jr.random() * 8999999):07d}"
            issn_p = f"{b7[:4]}-{b7[4:]}{issn_check_digit(b7)}"
            issn_e = f"{e7[:4]}-{e7[4:]}{issn_check_digit(e7)}"
            if jpub in ("acm", "ieee", "springer") and rnd() < 0.8:
                v["ISSN"] = [issn_p, issn_e]
                v["issn-type"] = [{"type": "print", "value": issn_p}, {"type": "electronic", "value": issn_e}]
            else:
                v["ISSN"] = [issn_e]
                v["issn-type"] = [{"type": "electronic", "value": issn_e}]
            if jpub == "acm":
                an = 1 + int(rnd() * 60)
                v["article-number"] = str(an)
                v["page"] = f"1-{18 + int(rnd() * 20)}"
            elif jpub == "elsevier":
                v["article-number"] = str(100000 + int(rnd() * 900000))
                v["page"] = v["article-number"]
            else:
                p0 = 1 + int(rnd() * 4000)
                v["page"] = f"{p0}-{p0 + 5 + int(rnd() * 20)}"
            ji_ord = date(year, min(12, int(h.issue)), 1).toordinal()
            v["journal-issue"] = {"issue": h.issue, ("published-print" if rnd() < 0.6 else "published-online"):
                                  date_parts(ji_ord, 2)}
            if rnd() < 0.3:
                v["subject"] = list(SUBJECTS[jpub][int(rnd() * len(SUBJECTS[jpub]))])
            if jpub in ("springer", "elsevier", "ieee") and rnd() < 0.6:
                v["language"] = "en"
            if jpub == "elsevier":
                v["alternative-id"] = [f"S{code.upper()[:4]}{year % 100:02d}{100000 + i}"]
            elif jpub == "springer":
                v["alternative-id"] = [doi.split("/", 1)[1]]
        elif typ == "book-chapter":
            b = self.book(i // 20)
            container = b["series"] + [b["title"]]
            v["ISBN"] = [b["isbn_p"], b["isbn_e"]]
            v["isbn-type"] = [{"type": "print", "value": b["isbn_p"]}, {"type": "electronic", "value": b["isbn_e"]}]
            v["ISSN"] = ["0302-9743", "1611-3349"] if "Lecture Notes" in b["series"][0] else []
            if v["ISSN"]:
                v["issn-type"] = [{"type": "print", "value": "0302-9743"}, {"type": "electronic", "value": "1611-3349"}]
            else:
                del v["ISSN"]
            p0 = 1 + int(rnd() * 400)
            v["page"] = f"{p0}-{p0 + 10 + int(rnd() * 14)}"
            if b["event"]:
                v["event"] = _copy_event(b["event"])
            if rnd() < 0.5:
                v["language"] = "en"
            v["alternative-id"] = [doi.split("/", 1)[1]]
        elif typ == "posted-content":
            v["subtype"] = "preprint"
            v["group-title"] = pick(r, ["Computer Science", "Engineering", "Computer Science and Mathematics"])
            v["institution"] = [{"name": "Research Square"}]
        elif typ == "dissertation":
            inst = self.insts[self.p_insts[pids[0]][0]]
            v["publisher"] = inst[0]
            v["institution"] = [{"name": inst[0], "place": [f"{inst[1]}, {inst[3]}"],
                                 "department": [pick(r, DEPARTMENTS)]}]
            v["degree"] = [pick(r, ["PhD", "Doctor of Philosophy", "Ph.D."])]
            v["approved"] = date_parts(issue_ord - int(rnd() * 30), 3)
        elif typ == "report":
            inst = self.insts[self.p_insts[pids[0]][0]]
            v["publisher"] = inst[0]
            v["institution"] = [{"name": inst[0]}]
            v["number"] = h.number
        v["container-title"] = container
        v["short-container-title"] = short_container

        # ---- references
        nrefs_target = 0
        if rnd() < 0.9 or typ in ("proceedings-article",):
            mean = {"proceedings-article": 42, "journal-article": 48, "book-chapter": 30,
                    "posted-content": 35, "report": 18, "dissertation": 75, "dataset": 2}[typ]
            nrefs_target = min(80, max(0, int(r.gauss(mean, mean * 0.35))))
        refs: list[dict[str, Any]] = []
        if nrefs_target:
            if house == "acm":
                kt, k0 = pick(r, (("e_1_3_2_1_{}_1", 1), ("e_1_3_3_2_{}_2", 2), ("e_1_3_2_2_{}_1", 1)))
                keyf = kt.format
            elif house == "ieee":
                k0 = 1
                keyf = "ref{}".format
            else:
                k0 = 1
                keyf = (doi + "-ref{}").format
            # composition: in-corpus citations, tools, pooled works
            n_in = 0
            if i > 0:
                n_in = min(nrefs_target // 4, int(rnd() * 5) if rnd() < 0.7 else 0)
            n_tools = min(nrefs_target // 3, int(rnd() * 7) if rnd() < 0.75 else 0)
            n_pool = nrefs_target - n_in - n_tools
            cc = self.cum_by_year.get(year)
            if cc is None:
                w0 = self.cited_cum
                cy = self.cited_year
                cc = list(accumulate((w0[k] - (w0[k - 1] if k else 0.0)) if cy[k] <= year else 0.0
                                     for k in range(N_CITED)))
                self.cum_by_year[year] = cc
            top = cc[-1]
            # pooled works (only those published no later than the citing record); the
            # i.i.d. popularity draws are already in random order
            items: list[Any] = []
            seen: set[int] = set()
            tries = 0
            cited = self.cited
            while len(items) < n_pool and tries < n_pool * 6:
                tries += 1
                k = bisect_right(cc, rnd() * top)
                if k not in seen:
                    seen.add(k)
                    w = cited[k] or self.cited_work(k)
                    if w.year <= year:
                        items.append(w)
            # tools and in-corpus citations go to random positions
            seen_t: set[int] = set()
            for _ in range(n_tools):
                t = weighted(r, self.tool_cum)
                if t not in seen_t:
                    seen_t.add(t)
                    if TOOLS[t][3] <= year:
                        items.insert(int(rnd() * (len(items) + 1)), ("t", t))
            seen_j: set[int] = set()
            for _ in range(n_in * 2):
                j = int(i * rnd() ** 2.5)
                if j not in seen_j:
                    seen_j.add(j)
                    if self.header(j).year <= year:
                        items.insert(int(rnd() * (len(items) + 1)), ("r", j))
                        if len(seen_j) >= n_in:
                            break
            kn = k0
            pick_style = self.pick_style
            template = self.template
            append = refs.append
            for w in items:
                key = keyf(kn)
                kn += 1
                if type(w) is Work:
                    st = pick_style(w, house, r)
                    if st == "doi":
                        append({"key": key, "doi-asserted-by": "publisher", "DOI": w.doi})
                    elif st == "key_only":
                        append({"key": key})
                    else:
                        pre, post = w.cache.get(st) or template(w, st, None)
                        if pre:
                            d = dict(pre)
                            d["key"] = key
                        else:
                            d = {"key": key}
                        d.update(post)
                        append(d)
                elif w[0] == "t":
                    append(self.tool_ref(w[1], house, key, r, created_ord))
                else:
                    hw = self.header(w[1])
                    st = "doi" if rnd() < 0.75 else ("doi_cr" if house != "ieee" else "doi")
                    append(self.render(hw, st, key, r, False))
        withheld = nrefs_target > 0 and rnd() < 0.02
        v["reference-count"] = len(refs)
        v["references-count"] = len(refs)
        if refs and not withheld:
            v["reference"] = refs

        # ---- license, funder, link
        if house == "acm":
            if rnd() < 0.6:
                lic_ord = online_ord or issue_ord
                lic = "https://creativecommons.org/licenses/by/4.0/" if rnd() < 0.35 else "http://www.acm.org/publications/policies/copyright_policy#Background"
                v["license"] = [{"start": stamped(lic_ord, 0), "content-version": "vor", "delay-in-days": 0,
                                 "URL": lic}]
        elif house == "ieee":
            if rnd() < 0.8:
                st = stamped(issue_ord, 0)
                v["license"] = [{"start": st, "content-version": "stm-asf", "delay-in-days": 0,
                                 "URL": "https://doi.org/10.15223/policy-029"},
                                {"start": st, "content-version": "stm-asf", "delay-in-days": 0,
                                 "URL": "https://doi.org/10.15223/policy-037"}]
                if rnd() < 0.3:
                    v["license"].append({"start": st, "content-version": "vor", "delay-in-days": 0,
                                         "URL": "https://ieeexplore.ieee.org/Xplorehelp/downloads/license-information/IEEE.html"})
        elif typ in ("dataset", "posted-content") or rnd() < 0.4:
            lic_ord = issue_ord + (0 if rnd() < 0.7 or typ in ("dataset", "posted-content") else 365)
            if typ in ("dataset", "posted-content", "report", "dissertation"):
                url = pick(r,
                    ["https://creativecommons.org/licenses/by/4.0", "https://creativecommons.org/licenses/by/4.0/",
                                "https://creativecommons.org/licenses/by-nc-nd/4.0/",
                                "https://creativecommons.org/publicdomain/zero/1.0/"])
            elif prefix == "10.9997":
                url = pick(r,
                    ["https://www.elsevier.com/tdm/userlicense/1.0/", "https://creativecommons.org/licenses/by/4.0/"])
            else:
                url = pick(r, ["https://www.springernature.com/gp/researchers/text-and-data-mining",
                                "https://creativecommons.org/licenses/by/4.0",
                                "https://www.springernature.com/gp/researchers/text-and-data-mining"])
            v["license"] = [{"start": stamped(lic_ord, 0),
                             "content-version": "tdm" if "tdm" in url or "text-and-data" in url else "vor",
                             "delay-in-days": lic_ord - issue_ord, "URL": url}]
        if rnd() < 0.38:
            funders = []
            for _ in range(1 if rnd() < 0.6 else 2 + int(rnd() * 3)):
                fdoi, fname, fkind = FUNDERS[int(rnd() * len(FUNDERS))]
                if any(f["name"] == fname for f in funders):
                    continue
                awards = [self._award(fkind,
                    r) for _ in range(0 if rnd() < 0.15 else 1 + int(rnd() * 2 if rnd() < 0.3 else 0))]
                f: dict[str, Any] = {}
                if fdoi and rnd() < 0.92:
                    f["DOI"] = fdoi
                    f["name"] = fname
                    f["doi-asserted-by"] = "publisher" if rnd() < 0.8 else "crossref"
                    f["award"] = awards
                    f["award-info"] = [{"award-number": [a]} for a in awards]
                    f["id"] = [{"id": fdoi, "id-type": "DOI", "asserted-by": f["doi-asserted-by"]}]
                else:
                    f["name"] = fname
                    f["award"] = awards
                    if awards:
                        f["award-info"] = [{"award-number": [a]} for a in awards]
                funders.append(f)
            v["funder"] = funders
        v["content-domain"] = {"domain": list(prof["domain"]["domain"]),
                               "crossmark-restriction": prof["domain"]["crossmark-restriction"]}
        if print_ord is not None:
            v["published-print"] = date_parts(print_ord, prec)
        if rnd() < (0.35 if typ != "dataset" else 0.9):
            v["abstract"] = make_abstract(r, h.title)
        v["DOI"] = doi
        v["type"] = typ
        v["created"] = stamped(created_ord, int(rnd() * 86400))
        if prof["policy"] and rnd() < 0.9:
            v["update-policy"] = prof["policy"]
        v["source"] = "Crossref"
        v["is-referenced-by-count"] = int(rnd() ** 4 * 300) if rnd() < 0.7 else 0
        v["title"] = [h.title]
        v["prefix"] = prefix

        # ---- authors
        authors = []
        role = house == "acm" and rnd() < 0.5
        aff_style = house
        for n, p in enumerate(pids):
            a: dict[str, Any] = {}
            oid = self.p_orcid[p]
            if oid and rnd() < 0.88:
                a["ORCID"] = oid
                a["authenticated-orcid"] = self.p_auth[p]
            g, m, f = self.p_name[p]
            a["given"] = f"{g} {m}." if m and rnd() < 0.6 else g
            a["family"] = f
            a["sequence"] = "first" if n == 0 else "additional"
            a["affiliation"] = self._affiliations(p, aff_style, r)
            if role:
                a["role"] = [{"role": "author", "vocabulary": "crossref"}]
            authors.append(a)
        if typ != "dissertation" and rnd() < 0.02:
            authors.append({"name": ORG_AUTHORS[int(rnd() * len(ORG_AUTHORS))], "sequence": "additional",
                            "affiliation": []})
        v["author"] = authors
        v["member"] = prof["member"]
        if online_ord is not None:
            v["published-online"] = date_parts(online_ord, 3 if prec == 3 or typ == "posted-content" else prec)
        v["original-title"] = []
        # ---- links
        arnumber = 11000000 + i
        if house == "acm":
            links = [{"URL": f"https://dl.acm.org/doi/pdf/{doi}", "content-type": "unspecified",
                      "content-version": "vor", "intended-application": "similarity-checking"}]
            if rnd() < 0.4:
                links.insert(0, {"URL": f"https://dl.acm.org/doi/pdf/{doi}", "content-type": "application/pdf",
                                 "content-version": "vor", "intended-application": "syndication"})
            resource = f"https://dl.acm.org/doi/{doi}"
        elif house == "ieee":
            links = [{"URL": f"http://xplorestaging.ieee.org/ielx8/{arnumber // 100}/{arnumber // 1000}/{arnumber}.pdf"
                             f"?arnumber={arnumber}",
                      "content-type": "unspecified", "content-version": "vor",
                      "intended-application": "similarity-checking"}]
            resource = f"https://ieeexplore.ieee.org/document/{arnumber}/"
        elif prefix == "10.9998":
            links = [{"URL": f"https://link.springer.com/content/pdf/{doi}.pdf", "content-type": "unspecified",
                      "content-version": "vor", "intended-application": "similarity-checking"}]
            resource = f"https://link.springer.com/{doi}"
        elif prefix == "10.9997":
            pii = v.get("alternative-id", ["S0000"])[0]
            links = [{"URL": f"https://api.elsevier.com/content/article/PII:{pii}?httpAccept=text/xml",
                      "content-type": "text/xml", "content-version": "vor", "intended-application": "text-mining"},
                     {"URL": f"https://api.elsevier.com/content/article/PII:{pii}?httpAccept=text/plain",
                      "content-type": "text/plain", "content-version": "vor", "intended-application": "text-mining"}]
            resource = f"https://linkinghub.elsevier.com/retrieve/pii/{pii}"
        elif prefix == "10.48555":
            links = [{"URL": f"https://www.researchsquare.com/article/rs-{2000000 + i}/v{1 + int(rnd() * 3)}.pdf",
                      "content-type": "unspecified", "content-version": "vor",
                      "intended-application": "similarity-checking"}] if rnd() < 0.7 else []
            resource = f"https://www.researchsquare.com/article/rs-{2000000 + i}/v1"
        else:
            links = []
            resource = f"https://repository.example.org/records/{i}"
        if links:
            v["link"] = links
        v["deposited"] = stamped(deposited_ord, int(rnd() * 86400))
        v["score"] = 1
        v["resource"] = {"primary": {"URL": resource}}
        sub = []
        if rnd() < 0.08:
            sub = [pick(r, SUBTITLES)]
        v["subtitle"] = sub
        # ---- editors
        if typ == "book-chapter" or (typ == "proceedings-article" and rnd() < 0.08):
            eds = (self.book(i // 20)["editors"] if typ == "book-chapter"
                   else [int(rnd() * N_PEOPLE) for _ in range(1 + int(rnd() * 3))])
            if typ != "book-chapter" or rnd() < 0.8:
                ed_list = []
                for n, p in enumerate(eds):
                    e: dict[str, Any] = {}
                    if self.p_orcid[p] and rnd() < 0.5:
                        e["ORCID"] = self.p_orcid[p]
                        e["authenticated-orcid"] = self.p_auth[p]
                    e["given"] = self.p_name[p][0]
                    e["family"] = self.p_name[p][2]
                    e["sequence"] = "first" if n == 0 else "additional"
                    e["affiliation"] = []
                    ed_list.append(e)
                v["editor"] = ed_list
        v["short-title"] = []
        v["issued"] = date_parts(issued_ord, prec)
        v["URL"] = f"https://doi.org/{doi}"
        # ---- relations
        rel: dict[str, Any] = {}
        if typ == "dataset" and i > 0:
            j = int(i * rnd())
            hj = self.header(j)
            v["title"] = [pick(r,
                               ["Artifact for", "Replication Package for", "Dataset and Code for"]) + f" “{hj.title}”"]
            rel["is-supplement-to"] = [{"id-type": "doi", "id": hj.doi, "asserted-by": "subject"}]
        elif typ == "posted-content" and i > 0 and rnd() < 0.15:
            j = int(i * rnd())
            rel["is-preprint-of"] = [{"id-type": "doi", "id": self.header(j).doi, "asserted-by": "subject"}]
        v["relation"] = rel
        if "subject" not in v:
            v["subject"] = []
        v["published"] = date_parts(issued_ord, prec)
        if typ == "posted-content":
            v["posted"] = date_parts(online_ord or issue_ord, 3)

        order = self.work_order
        return {k: v[k] for k in order if k in v}

    def _award(self, kind: str, r: Random) -> str:
        x = int(r.random() * 10 ** 7)
        if kind == "nsf":
            return pick(r, (f"{1400000 + x % 1000000}", f"CCF-{2000000 + x % 400000}", f"CNS-{1900000 + x % 500000}",
                             f"OAC-{2100000 + x % 200000}", f"DGE-{2100000 + x % 100000}"))
        if kind == "doe":
            return pick(r, ("DE-AC02-05CH11231", "DE-AC52-07NA27344", "DE-AC05-00OR22725", f"DE-SC00{x % 100000:05d}"))
        if kind == "erc":
            return f"{101000000 + x % 100000}"
        if kind == "nsfc":
            return f"{61900000 + x % 2000000}"
        if kind == "dfg":
            return f"{x % 1000000000:09d}"[:9]
        if kind == "darpa":
            return f"HR00{11 + x % 14}-{x % 100:02d}-{'C' if x % 2 else '3'}-{x % 10000:04d}"
        if kind == "eu":
            return f"{800000 + x % 170000}"
        if kind == "jsps":
            return f"JP{20 + x % 6}K{x % 100000:05d}"
        return f"{x % 1000000}"

    def _affiliations(self, p: int, style: str, r: Random) -> list[dict[str, Any]]:
        x = r.random()
        if x < (0.02 if style == "ieee" else 0.1):
            return []
        ins = self.p_insts[p]
        if len(ins) > 1 and r.random() < 0.6:
            chosen = ins
        else:
            chosen = ins[:1]
        out = []
        for ii in chosen:
            name, city, region, country = self.insts[ii]
            if style == "ieee":
                s = f"{name},{city},{country}"
                if r.random() < 0.2:
                    s = f"{pick(r, DEPARTMENTS)},{s}"
            elif style == "acm":
                ctry = "United States of America" if country == "USA" and r.random() < 0.15 else country
                s = f"{name}, {city}, {region}, {ctry}" if region and r.random() < 0.6 else f"{name}, {city}, {ctry}"
            else:
                s = (f"{pick(r, DEPARTMENTS)}, {name}, {city}, {country}" if r.random() < 0.4
                     else f"{name}, {city}, {country}")
            aff: dict[str, Any] = {}
            ror = self.inst_ror[ii]
            if ror and r.random() < 0.15:
                aff["id"] = [{"id": ror, "id-type": "ROR", "asserted-by": "publisher"}]
            aff["name"] = s
            out.append(aff)
        return out


def generate(n: int, seed: str = "0", start: int = 0) -> Iterator[dict[str, Any]]:
    """Yield records start..start+n-1 for the given seed."""
    g = Generator(seed)
    for i in range(start, start + n):
        yield g.record(i)


def render_lines(g: Generator, start: int, stop: int) -> bytes:
    """Records start..stop-1 as JSON Lines (each line newline-terminated)."""
    lines = [_dumps(g.record(i)) for i in range(start, stop)]
    lines.append(b"")
    return b"\n".join(lines)


_WORKER: Generator | None = None


def _worker_init(seed: str) -> None:
    global _WORKER
    gc.disable()
    if _WORKER is None or _WORKER.seed != seed:  # forked children inherit the parent's pools
        _WORKER = Generator(seed)


def _worker_chunk(span: tuple[int, int]) -> bytes:
    assert _WORKER is not None
    return render_lines(_WORKER, span[0], span[1])


CHUNK = 1000


def write_records(stream: Any, n: int, seed: str, jobs: int) -> None:
    """Stream records 0..n-1 to ``stream``; with jobs > 1, chunks are built by worker
    processes and written in order (a record is a pure function of (seed, i), so the bytes
    are identical to a serial run)."""
    global _WORKER
    g = Generator(seed)
    spans = [(a, min(a + CHUNK, n)) for a in range(0, n, CHUNK)]
    if jobs > 1 and len(spans) > 1:
        import multiprocessing as mp
        from collections import deque

        try:
            ctx = mp.get_context("fork") if "fork" in mp.get_all_start_methods() else mp.get_context()
            _WORKER = g
            pool = ctx.Pool(jobs, initializer=_worker_init, initargs=(seed,))
        except (OSError, ValueError, ImportError):  # no process support here: run serially
            pool = None
        if pool is not None:
            try:
                pending: deque[Any] = deque()
                it = iter(spans)
                for span in it:  # keep a bounded number of chunks in flight
                    pending.append(pool.apply_async(_worker_chunk, (span,)))
                    if len(pending) >= 2 * jobs:
                        stream.write(pending.popleft().get())
                while pending:
                    stream.write(pending.popleft().get())
                pool.close()
            finally:
                pool.terminate()
                pool.join()
            return
    for a, b in spans:
        stream.write(render_lines(g, a, b))


def _open_out(out: str) -> tuple[Any, Callable[[], None]]:
    if out == "-":
        stream = sys.stdout.buffer
        return stream, stream.flush
    if out.endswith(".gz"):
        raw = open(out, "wb")
        gz = gzip.GzipFile(filename="", mode="wb", fileobj=raw, compresslevel=1, mtime=0)

        def close_gz() -> None:
            gz.close()
            raw.close()

        return gz, close_gz
    f = open(out, "wb")
    return f, f.close


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="synth.py", description=__doc__.splitlines()[0])
    ap.add_argument("n", metavar="N", type=int, help="number of records to generate")
    ap.add_argument("out", metavar="OUT", help="output path (.gz for gzip) or - for stdout")
    ap.add_argument("--seed", default="0", help="generator seed (any string; default 0)")
    ap.add_argument("--jobs", type=int, default=1,
                    help="worker processes building the records (default 1; 0 = one per CPU, "
                         "up to 8); the output bytes do not depend on it")
    ap.add_argument("--shape", choices=("default", "two-families"), default="default",
                    help="two-families: 90%% of the records' titles name a profiler or a compiler, so that both sides "
                         "of the headline question hold thousands of papers (default: the seeds' spread of topics)")
    args = ap.parse_args(argv)
    global SHAPE
    SHAPE = args.shape
    if args.n < 0:
        ap.error("N must be >= 0")
    jobs = args.jobs if args.jobs > 0 else min(os.cpu_count() or 1, 8)
    stream, close = _open_out(args.out)
    # records hold no reference cycles: plain refcounting frees them, and the cyclic
    # collector would otherwise keep rescanning the (large, long-lived) pools
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        write_records(stream, args.n, args.seed, jobs)
    finally:
        close()
        if gc_was_enabled:
            gc.enable()
    print(f"synth: wrote {args.n} records to {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
